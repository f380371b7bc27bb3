<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>Top</name>
    <message>
        <source>unknown view: %1</source>
        <translation>unbekannte Ansicht: %1</translation>
    </message>
    <message>
        <source>Priority class:</source>
        <translation>Prioritätsklasse:</translation>
    </message>
    <message>
        <source>Pin to node:</source>
        <translation>An Knoten binden:</translation>
    </message>
    <message>
        <source>Drain reason:</source>
        <translation>Grund für das Leeren:</translation>
    </message>
    <message>
        <source>read-only: actions are off</source>
        <translation>nur lesen: Aktionen sind aus</translation>
    </message>
    <message>
        <source>refused: %1</source>
        <translation>abgelehnt: %1</translation>
    </message>
    <message>
        <source>done: %1</source>
        <translation>erledigt: %1</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>Warum</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Queue position</source>
        <translation>Warteschlangenplatz</translation>
    </message>
    <message>
        <source>ETA</source>
        <translation>Vorauss. Start</translation>
    </message>
    <message>
        <source>in %1</source>
        <translation>in %1</translation>
    </message>
    <message>
        <source>Fragmentation</source>
        <translation>Fragmentierung</translation>
    </message>
    <message>
        <source>Blocked by jobs</source>
        <translation>Blockiert durch Jobs</translation>
    </message>
    <message>
        <source>Blocked by teams</source>
        <translation>Blockiert durch Teams</translation>
    </message>
    <message>
        <source>What would help:</source>
        <translation>Was helfen würde:</translation>
    </message>
    <message>
        <source>Placement</source>
        <translation>Platzierung</translation>
    </message>
    <message>
        <source>History:</source>
        <translation>Verlauf:</translation>
    </message>
    <message>
        <source>team %1, class %2, %3, asks %4</source>
        <translation>Team %1, Klasse %2, %3, fordert %4</translation>
    </message>
    <message>
        <source>held by an operator</source>
        <translation>von einem Operator zurückgehalten</translation>
    </message>
    <message>
        <source>Running on</source>
        <translation>Läuft auf</translation>
    </message>
    <message>
        <source>MPS limits</source>
        <translation>MPS-Limits</translation>
    </message>
    <message>
        <source>Job %1 is no longer active</source>
        <translation>Job %1 ist nicht mehr aktiv</translation>
    </message>
    <message>
        <source>No node %1</source>
        <translation>Kein Knoten %1</translation>
    </message>
    <message>
        <source>Holds:</source>
        <translation>Sperren:</translation>
    </message>
    <message>
        <source>down</source>
        <translation>ausgefallen</translation>
    </message>
    <message>
        <source>Running jobs:</source>
        <translation>Laufende Jobs:</translation>
    </message>
    <message>
        <source>switch view</source>
        <translation>Ansicht wechseln</translation>
    </message>
    <message>
        <source>filter: words, key=value (team=, state=, node=, name=, ...)</source>
        <translation>Filter: Wörter, Schlüssel=Wert (team=, state=, node=, name=, ...)</translation>
    </message>
    <message>
        <source>drill down: job or node detail</source>
        <translation>Details: Job oder Knoten</translation>
    </message>
    <message>
        <source>back, or clear the filter</source>
        <translation>zurück, oder Filter löschen</translation>
    </message>
    <message>
        <source>move the selection</source>
        <translation>Auswahl bewegen</translation>
    </message>
    <message>
        <source>sort by the next column / reverse</source>
        <translation>nach der nächsten Spalte sortieren / umkehren</translation>
    </message>
    <message>
        <source>group jobs by team</source>
        <translation>Jobs nach Team gruppieren</translation>
    </message>
    <message>
        <source>next heatmap layer</source>
        <translation>nächste Heatmap-Ebene</translation>
    </message>
    <message>
        <source>quit</source>
        <translation>beenden</translation>
    </message>
    <message>
        <source>hold / release the job</source>
        <translation>Job zurückhalten / freigeben</translation>
    </message>
    <message>
        <source>preempt / cancel the job</source>
        <translation>Job verdrängen / abbrechen</translation>
    </message>
    <message>
        <source>set the priority class</source>
        <translation>Prioritätsklasse setzen</translation>
    </message>
    <message>
        <source>move to the top / bottom of the queue</source>
        <translation>an den Anfang / das Ende der Warteschlange</translation>
    </message>
    <message>
        <source>pin the job to a node</source>
        <translation>Job an einen Knoten binden</translation>
    </message>
    <message>
        <source>drain (with a reason) / undrain the node</source>
        <translation>Knoten leeren (mit Grund) / wieder freigeben</translation>
    </message>
    <message>
        <source>Jobs</source>
        <translation>Jobs</translation>
    </message>
    <message>
        <source>Pending</source>
        <translation>Wartend</translation>
    </message>
    <message>
        <source>GPU heatmap</source>
        <translation>GPU-Heatmap</translation>
    </message>
    <message>
        <source>MIG</source>
        <translation>MIG</translation>
    </message>
    <message>
        <source>Events</source>
        <translation>Ereignisse</translation>
    </message>
    <message>
        <source>Teams</source>
        <translation>Teams</translation>
    </message>
    <message>
        <source>Job</source>
        <translation>Job</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>Tasten</translation>
    </message>
    <message>
        <source>GPUs %1/%2</source>
        <translation>GPUs %1/%2</translation>
    </message>
    <message>
        <source>run %1</source>
        <translation>laufend %1</translation>
    </message>
    <message>
        <source>pend %1</source>
        <translation>wartend %1</translation>
    </message>
    <message>
        <source>sort</source>
        <translation>Sortierung</translation>
    </message>
    <message>
        <source>by team</source>
        <translation>nach Team</translation>
    </message>
    <message>
        <source>read-only</source>
        <translation>nur lesen</translation>
    </message>
    <message>
        <source>:view /filter ?keys Esc back q quit</source>
        <translation>:Ansicht /Filter ?Tasten Esc zurück q Ende</translation>
    </message>
    <message>
        <source>Enter detail s sort g group</source>
        <translation>Enter Details s sortieren g gruppieren</translation>
    </message>
    <message>
        <source>h hold r release p preempt x cancel</source>
        <translation>h zurückhalten r freigeben p verdrängen x abbrechen</translation>
    </message>
    <message>
        <source>d drain u undrain</source>
        <translation>d leeren u freigeben</translation>
    </message>
    <message>
        <source>starts: %1</source>
        <translation>startet: %1</translation>
    </message>
    <message>
        <source>preempted: %1</source>
        <translation>verdrängt: %1</translation>
    </message>
    <message>
        <source>stopped: %1</source>
        <translation>beendet: %1</translation>
    </message>
    <message>
        <source>GPU-hours lost: %1</source>
        <translation>verlorene GPU-Stunden: %1</translation>
    </message>
    <message>
        <source>Confirm</source>
        <translation>Bestätigen</translation>
    </message>
    <message>
        <source>Dry run (the engine&apos;s prediction):</source>
        <translation>Probelauf (Vorhersage der Engine):</translation>
    </message>
    <message>
        <source>y apply  n cancel</source>
        <translation>y ausführen  n abbrechen</translation>
    </message>
    <message>
        <source>Terminal too small</source>
        <translation>Terminal zu klein</translation>
    </message>
    <message>
        <source>Allocation</source>
        <translation>Belegung</translation>
    </message>
    <message>
        <source>Utilization</source>
        <translation>Auslastung</translation>
    </message>
    <message>
        <source>SM active</source>
        <translation>SM aktiv</translation>
    </message>
    <message>
        <source>Allocated but idle</source>
        <translation>Belegt, aber ungenutzt</translation>
    </message>
    <message>
        <source>Health</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>Ebene</translation>
    </message>
    <message>
        <source>out</source>
        <translation>ausgefallen</translation>
    </message>
    <message>
        <source>held</source>
        <translation>zurückgehalten</translation>
    </message>
    <message>
        <source>ID</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>NAME</source>
        <translation>NAME</translation>
    </message>
    <message>
        <source>TEAM</source>
        <translation>TEAM</translation>
    </message>
    <message>
        <source>CLASS</source>
        <translation>KLASSE</translation>
    </message>
    <message>
        <source>STATE</source>
        <translation>STATUS</translation>
    </message>
    <message>
        <source>GPUS</source>
        <translation>GPUS</translation>
    </message>
    <message>
        <source>POS</source>
        <translation>POS</translation>
    </message>
    <message>
        <source>AGE</source>
        <translation>ALTER</translation>
    </message>
    <message>
        <source>REASON / NODES</source>
        <translation>GRUND / KNOTEN</translation>
    </message>
    <message>
        <source>NODE</source>
        <translation>KNOTEN</translation>
    </message>
    <message>
        <source>POOL</source>
        <translation>POOL</translation>
    </message>
    <message>
        <source>LEAF</source>
        <translation>LEAF</translation>
    </message>
    <message>
        <source>ALLOCATED</source>
        <translation>BELEGT</translation>
    </message>
    <message>
        <source>UTIL</source>
        <translation>AUSL.</translation>
    </message>
    <message>
        <source>REASON</source>
        <translation>GRUND</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>MODEL</source>
        <translation>MODELL</translation>
    </message>
    <message>
        <source>SLICES</source>
        <translation>SLICES</translation>
    </message>
    <message>
        <source>BUSY</source>
        <translation>BELEGT</translation>
    </message>
    <message>
        <source>LAYOUT</source>
        <translation>LAYOUT</translation>
    </message>
    <message>
        <source>SEQ</source>
        <translation>NR</translation>
    </message>
    <message>
        <source>TIME</source>
        <translation>ZEIT</translation>
    </message>
    <message>
        <source>JOB</source>
        <translation>JOB</translation>
    </message>
    <message>
        <source>EVENT</source>
        <translation>EREIGNIS</translation>
    </message>
    <message>
        <source>ACTOR</source>
        <translation>AKTEUR</translation>
    </message>
    <message>
        <source>allocated</source>
        <translation>belegt</translation>
    </message>
    <message>
        <source>busy</source>
        <translation>ausgelastet</translation>
    </message>
    <message>
        <source>PARENT</source>
        <translation>ELTERN</translation>
    </message>
    <message>
        <source>IN USE</source>
        <translation>IN NUTZUNG</translation>
    </message>
    <message>
        <source>GUARANTEED</source>
        <translation>GARANTIERT</translation>
    </message>
    <message>
        <source>SHARE</source>
        <translation>ANTEIL</translation>
    </message>
    <message>
        <source>pool %1</source>
        <translation>Pool %1</translation>
    </message>
    <message>
        <source>switch view and filter it</source>
        <translation>Ansicht wechseln und filtern</translation>
    </message>
    <message>
        <source>heatmap: move to the GPU beside, above or below</source>
        <translation>Heatmap: zur GPU daneben, darüber oder darunter</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>Laufend</translation>
    </message>
    <message>
        <source>arrows/hjkl move L layer Enter node</source>
        <translation>Pfeile/hjkl bewegen L Ebene Enter Knoten</translation>
    </message>
    <message>
        <source>L next layer</source>
        <translation>L nächste Ebene</translation>
    </message>
    <message>
        <source>cluster</source>
        <translation>Cluster</translation>
    </message>
    <message>
        <source>ALLOCATED / BUSY / SM</source>
        <translation>BELEGT / AUSGELASTET / SM</translation>
    </message>
    <message>
        <source>awaiting admission</source>
        <translation>wartet auf Aufnahme</translation>
    </message>
    <message>
        <source>admitted, joins next</source>
        <translation>aufgenommen, folgt</translation>
    </message>
    <message>
        <source>in the model</source>
        <translation>im Modell</translation>
    </message>
    <message>
        <source>Nodes awaiting admission: %1   admit: tessera ctl node admit NODE</source>
        <translation>Knoten, die auf Aufnahme warten: %1   aufnehmen: tessera ctl node admit NODE</translation>
    </message>
    <message>
        <source>Node warnings (the nodes&apos; last inventory reports)</source>
        <translation>Knotenwarnungen (die letzten Inventarberichte der Knoten)</translation>
    </message>
    <message>
        <source>STATUS</source>
        <translation>STATUS</translation>
    </message>
    <message>
        <source>HOST</source>
        <translation>HOST</translation>
    </message>
    <message>
        <source>WARNING</source>
        <translation>WARNUNG</translation>
    </message>
</context>
<context>
    <name>tessera::console::Layout</name>
    <message>
        <source>Capacity</source>
        <translation>Kapazität</translation>
    </message>
    <message>
        <source>MIG</source>
        <translation>MIG</translation>
    </message>
    <message>
        <source>Operations</source>
        <translation>Betrieb</translation>
    </message>
</context>
<context>
    <name>tessera::console::MainWindow</name>
    <message>
        <source>Tessera — %1</source>
        <translation>Tessera — %1</translation>
    </message>
    <message>
        <source>Session</source>
        <translation>Sitzung</translation>
    </message>
    <message>
        <source>Embedded demo</source>
        <translation>Eingebettete Demo</translation>
    </message>
    <message>
        <source>Connect…</source>
        <translation>Verbinden…</translation>
    </message>
    <message>
        <source>Ctrl+K</source>
        <translation>Ctrl+K</translation>
    </message>
    <message>
        <source>Speed </source>
        <translation>Tempo </translation>
    </message>
    <message>
        <source>paused</source>
        <translation>angehalten</translation>
    </message>
    <message>
        <source>1×</source>
        <translation>1×</translation>
    </message>
    <message>
        <source>60×</source>
        <translation>60×</translation>
    </message>
    <message>
        <source>600×</source>
        <translation>600×</translation>
    </message>
    <message>
        <source>3600×</source>
        <translation>3600×</translation>
    </message>
    <message>
        <source>Layer </source>
        <translation>Ebene </translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>Einpassen</translation>
    </message>
    <message>
        <source>Ctrl+0</source>
        <translation>Ctrl+0</translation>
    </message>
    <message>
        <source>Search jobs, nodes, GPUs (Ctrl+F)</source>
        <translation>Jobs, Knoten, GPUs suchen (Strg+F)</translation>
    </message>
    <message>
        <source>Pending</source>
        <translation>Wartend</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>Laufend</translation>
    </message>
    <message>
        <source>Why pending</source>
        <translation>Wartegrund</translation>
    </message>
    <message>
        <source>MIG map</source>
        <translation>MIG-Karte</translation>
    </message>
    <message>
        <source>Repartition</source>
        <translation>Neu partitionieren</translation>
    </message>
    <message>
        <source>Hardware</source>
        <translation>Hardware</translation>
    </message>
    <message>
        <source>Activity</source>
        <translation>Aktivität</translation>
    </message>
    <message>
        <source>Session: %1</source>
        <translation>Sitzung: %1</translation>
    </message>
    <message>
        <source>Dry run: %1 → %2</source>
        <translation>Probelauf: %1 → %2</translation>
    </message>
    <message>
        <source>%1 → %2</source>
        <translation>%1 → %2</translation>
    </message>
    <message>
        <source>Refused: %1 — %2</source>
        <translation>Abgelehnt: %1 — %2</translation>
    </message>
    <message>
        <source>%1 — disconnected: %2</source>
        <translation>%1 — Verbindung getrennt: %2</translation>
    </message>
    <message>
        <source>GPUs %1 / %2 allocated</source>
        <translation>GPUs %1 / %2 belegt</translation>
    </message>
    <message>
        <source>, %1 busy, %2 SM-active</source>
        <translation>, %1 ausgelastet, %2 SM-aktiv</translation>
    </message>
    <message>
        <source> · %1 pending, %2 running · cycle %3 ms</source>
        <translation> · %1 wartend, %2 laufend · Zyklus %3 ms</translation>
    </message>
    <message>
        <source>Layout refused: %1</source>
        <translation>Layout abgelehnt: %1</translation>
    </message>
    <message>
        <source>Cannot start the embedded demo: %1</source>
        <translation>Die eingebettete Demo kann nicht gestartet werden: %1</translation>
    </message>
    <message>
        <source>Embedded demo (simulated, %1)</source>
        <translation>Eingebettete Demo (simuliert, %1)</translation>
    </message>
    <message>
        <source>Connect to tesserad</source>
        <translation>Mit tesserad verbinden</translation>
    </message>
    <message>
        <source>PEM file; empty = plaintext (loopback only)</source>
        <translation>PEM-Datei; leer = Klartext (nur Loopback)</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>Adresse</translation>
    </message>
    <message>
        <source>Token</source>
        <translation>Token</translation>
    </message>
    <message>
        <source>CA certificate</source>
        <translation>CA-Zertifikat</translation>
    </message>
    <message>
        <source>tesserad at %1</source>
        <translation>tesserad unter %1</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>Dunkel</translation>
    </message>
    <message>
        <source>Utilization</source>
        <translation>Auslastung</translation>
    </message>
    <message>
        <source>Idle GPUs</source>
        <translation>Ungenutzte GPUs</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>Zeitachse</translation>
    </message>
    <message>
        <source>Hold</source>
        <translation>Zurückhalten</translation>
    </message>
    <message>
        <source>Release</source>
        <translation>Freigeben</translation>
    </message>
    <message>
        <source>Preempt</source>
        <translation>Verdrängen</translation>
    </message>
    <message>
        <source>Cancel job</source>
        <translation>Job abbrechen</translation>
    </message>
    <message>
        <source>Move to top</source>
        <translation>Nach oben verschieben</translation>
    </message>
    <message>
        <source>Move to bottom</source>
        <translation>Nach unten verschieben</translation>
    </message>
    <message>
        <source>Export report…</source>
        <translation>Bericht exportieren…</translation>
    </message>
    <message>
        <source>Ctrl+E</source>
        <translation>Ctrl+E</translation>
    </message>
    <message>
        <source>A utilization and chargeback report as PDF, HTML, CSV or JSON</source>
        <translation>Ein Auslastungs- und Kostenbericht als PDF, HTML, CSV oder JSON</translation>
    </message>
    <message>
        <source>Report written to %1</source>
        <translation>Bericht geschrieben nach %1</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>Einstellungen…</translation>
    </message>
    <message>
        <source>Ctrl+,</source>
        <translation>Ctrl+,</translation>
    </message>
    <message>
        <source>Settings saved; a new language applies at the next start</source>
        <translation>Einstellungen gespeichert; eine neue Sprache gilt ab dem nächsten Start</translation>
    </message>
    <message>
        <source> · %1 ready, synced %2 ago</source>
        <translation> · %1 bereit, abgeglichen vor %2</translation>
    </message>
    <message>
        <source> · %1 UNAVAILABLE, never synced</source>
        <translation> · %1 NICHT ERREICHBAR, nie abgeglichen</translation>
    </message>
    <message>
        <source> · %1 UNAVAILABLE, last synced %2 ago</source>
        <translation> · %1 NICHT ERREICHBAR, zuletzt abgeglichen vor %2</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>%1 layout</source>
        <translation>Layout %1</translation>
    </message>
    <message>
        <source>Reset layout</source>
        <translation>Layout zurücksetzen</translation>
    </message>
    <message>
        <source>Overview</source>
        <translation>Übersicht</translation>
    </message>
    <message>
        <source>Pending: every job</source>
        <translation>Wartend: alle Jobs</translation>
    </message>
    <message>
        <source>Pending: only “%1” (activate it again for every job)</source>
        <translation>Wartend: nur „%1“ (erneut aktivieren für alle Jobs)</translation>
    </message>
    <message>
        <source>GPU heatmap</source>
        <translation>GPU-Heatmap</translation>
    </message>
    <message>
        <source>Pending jobs</source>
        <translation>Wartende Jobs</translation>
    </message>
    <message>
        <source>Running jobs</source>
        <translation>Laufende Jobs</translation>
    </message>
    <message>
        <source>Why the selected job is pending</source>
        <translation>Warum der gewählte Job wartet</translation>
    </message>
    <message>
        <source>MIG repartition editor</source>
        <translation>MIG-Partitionseditor</translation>
    </message>
    <message>
        <source>Utilization charts</source>
        <translation>Auslastungsdiagramme</translation>
    </message>
    <message>
        <source>Timeline of running jobs and reservations</source>
        <translation>Zeitleiste laufender Jobs und Reservierungen</translation>
    </message>
    <message>
        <source>Hardware tree</source>
        <translation>Hardware-Baum</translation>
    </message>
    <message>
        <source>Activity log</source>
        <translation>Aktivitätsprotokoll</translation>
    </message>
    <message>
        <source>Search jobs, nodes, GPUs</source>
        <translation>Jobs, Knoten, GPUs suchen</translation>
    </message>
    <message>
        <source>Heatmap layer</source>
        <translation>Heatmap-Ebene</translation>
    </message>
    <message>
        <source>Demo speed</source>
        <translation>Demo-Tempo</translation>
    </message>
    <message>
        <source>Pin to selected GPUs</source>
        <translation>An die ausgewählten GPUs binden</translation>
    </message>
    <message>
        <source>Go to heatmap</source>
        <translation>Zur Heatmap</translation>
    </message>
    <message>
        <source>Go to pending queue</source>
        <translation>Zur Warteschlange „Wartend“</translation>
    </message>
    <message>
        <source>Nodes awaiting admission</source>
        <translation>Knoten, die auf Aufnahme warten</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Sharing study…</source>
        <translation>GPU-Teilungsstudie …</translation>
    </message>
    <message>
        <source>Compare whole GPUs, time-slicing, MPS and MIG on this cluster in simulation</source>
        <translation>Ganze GPUs, Time-Slicing, MPS und MIG auf diesem Cluster in der Simulation vergleichen</translation>
    </message>
</context>
<context>
    <name>tessera::console::SettingsDialog</name>
    <message>
        <source>System default</source>
        <translation>Systemvorgabe</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>The language changes when Tessera is started again.</source>
        <translation>Die Sprache ändert sich, wenn Tessera neu gestartet wird.</translation>
    </message>
    <message>
        <source>TESSERA_LANG=%1 is set in the environment and wins over this setting.</source>
        <translation>TESSERA_LANG=%1 ist in der Umgebung gesetzt und hat Vorrang vor dieser Einstellung.</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>Sprache</translation>
    </message>
</context>
<context>
    <name>tessera::text</name>
    <message>
        <source>%1, %2</source>
        <translation>%1, %2</translation>
    </message>
    <message>
        <source>%1 and %2</source>
        <translation>%1 und %2</translation>
    </message>
    <message>
        <source>%1; %2</source>
        <translation>%1; %2</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 Knoten: %2</translation>
    </message>
    <message>
        <source>job %1</source>
        <translation>Job %1</translation>
    </message>
    <message>
        <source>jobs %1</source>
        <translation>Jobs %1</translation>
    </message>
    <message>
        <source>%1 GPU %2</source>
        <translation>%1 GPU %2</translation>
    </message>
    <message>
        <source>node</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>NVLink domain</source>
        <translation>NVLink-Domäne</translation>
    </message>
    <message>
        <source>leaf switch</source>
        <translation>Leaf-Switch</translation>
    </message>
    <message>
        <source>spine</source>
        <translation>Spine</translation>
    </message>
    <message>
        <source>cluster</source>
        <translation>Cluster</translation>
    </message>
    <message>
        <source>on one node</source>
        <translation>auf einem Knoten</translation>
    </message>
    <message>
        <source>NVLink-connected</source>
        <translation>mit NVLink-Verbindung</translation>
    </message>
    <message>
        <source>under one leaf switch</source>
        <translation>unter einem Leaf-Switch</translation>
    </message>
    <message>
        <source>under one spine</source>
        <translation>unter einem Spine</translation>
    </message>
    <message>
        <source>in the cluster</source>
        <translation>im Cluster</translation>
    </message>
    <message>
        <source>pending</source>
        <translation>wartend</translation>
    </message>
    <message>
        <source>admitted</source>
        <translation>zugelassen</translation>
    </message>
    <message>
        <source>running</source>
        <translation>laufend</translation>
    </message>
    <message>
        <source>completed</source>
        <translation>abgeschlossen</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>abgebrochen</translation>
    </message>
    <message>
        <source>preempted</source>
        <translation>verdrängt</translation>
    </message>
    <message>
        <source>node not up</source>
        <translation>Knoten nicht verfügbar</translation>
    </message>
    <message>
        <source>pool mismatch</source>
        <translation>falscher Pool</translation>
    </message>
    <message>
        <source>GPU model not allowed</source>
        <translation>GPU-Modell nicht zulässig</translation>
    </message>
    <message>
        <source>GPU memory too small</source>
        <translation>GPU-Speicher zu klein</translation>
    </message>
    <message>
        <source>not enough free GPUs</source>
        <translation>nicht genug freie GPUs</translation>
    </message>
    <message>
        <source>no MIG GPU with the profile</source>
        <translation>keine MIG-GPU mit dem Profil</translation>
    </message>
    <message>
        <source>no free MIG slot for the profile</source>
        <translation>kein freier MIG-Platz für das Profil</translation>
    </message>
    <message>
        <source>no GPU share left</source>
        <translation>kein GPU-Anteil mehr frei</translation>
    </message>
    <message>
        <source>not enough free CPUs</source>
        <translation>nicht genug freie CPUs</translation>
    </message>
    <message>
        <source>not enough free memory</source>
        <translation>nicht genug freier Arbeitsspeicher</translation>
    </message>
    <message>
        <source>GPUs reserved</source>
        <translation>GPUs reserviert</translation>
    </message>
    <message>
        <source>not among the pinned GPUs</source>
        <translation>nicht unter den festgelegten GPUs</translation>
    </message>
    <message>
        <source>%1/%2 nodes fit</source>
        <translation>%1/%2 Knoten passen</translation>
    </message>
    <message>
        <source>waiting for the next scheduling cycle</source>
        <translation>wartet auf den nächsten Scheduling-Zyklus</translation>
    </message>
    <message>
        <source>held by an operator</source>
        <translation>von einem Operator zurückgehalten</translation>
    </message>
    <message>
        <source>team %1 may hold at most %2 GPUs (guaranteed + borrow); the job needs %3</source>
        <translation>Team %1 darf höchstens %2 GPUs belegen (garantiert + geliehen); der Job benötigt %3</translation>
    </message>
    <message>
        <source>pinned GPU %1 does not exist</source>
        <translation>festgelegte GPU %1 existiert nicht</translation>
    </message>
    <message>
        <source>team %1 uses %2 of its %3 guaranteed %4 GPUs</source>
        <translation>Team %1 nutzt %2 seiner %3 garantierten %4 GPUs</translation>
    </message>
    <message>
        <source>%1 and may borrow %2; the job needs %3</source>
        <translation>%1 und darf %2 ausleihen; der Job benötigt %3</translation>
    </message>
    <message>
        <source>%1; the job needs %2 and other teams lend only %3 idle %4 GPUs now</source>
        <translation>%1; der Job benötigt %2, und andere Teams verleihen derzeit nur %3 ungenutzte %4 GPUs</translation>
    </message>
    <message>
        <source>team %1 has no quota for %2 GPUs</source>
        <translation>Team %1 hat kein Kontingent für %2 GPUs</translation>
    </message>
    <message>
        <source>the job requests no GPU</source>
        <translation>der Job fordert keine GPU an</translation>
    </message>
    <message>
        <source>no node can host a task: %1</source>
        <translation>kein Knoten kann einen Task aufnehmen: %1</translation>
    </message>
    <message>
        <source>tasks of %1 GPUs</source>
        <translation>Tasks mit je %1 GPUs</translation>
    </message>
    <message>
        <source>tasks of one %1 instance</source>
        <translation>Tasks mit je einer %1-Instanz</translation>
    </message>
    <message>
        <source>tasks of %1 milli-GPU</source>
        <translation>Tasks mit je %1 Milli-GPU</translation>
    </message>
    <message>
        <source>tasks</source>
        <translation>Tasks</translation>
    </message>
    <message>
        <source>the gang needs %1 %2; the cluster has room for %3 (%4)</source>
        <translation>die Task-Gruppe benötigt %1 %2; der Cluster hat Platz für %3 (%4)</translation>
    </message>
    <message>
        <source>the gang needs %1 %2 within one %3 (required); the roomiest %3 has room for %4</source>
        <translation>die Task-Gruppe benötigt %1 %2 innerhalb einer Einheit der Ebene %3 (erforderlich); die geräumigste Einheit der Ebene %3 bietet Platz für %4</translation>
    </message>
    <message>
        <source>internal: a unit with room could not be taken</source>
        <translation>intern: eine Einheit mit freiem Platz konnte nicht belegt werden</translation>
    </message>
    <message>
        <source>internal: the preemption plan did not hold (%1)</source>
        <translation>intern: der Verdrängungsplan ging nicht auf (%1)</translation>
    </message>
    <message>
        <source>requeued after preemption by job %1</source>
        <translation>nach Verdrängung durch Job %1 erneut eingereiht</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1&#xa0;s</translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation>%1&#xa0;min</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1&#xa0;h %2&#xa0;min</translation>
    </message>
    <message>
        <source>fits now; it starts in the next scheduling cycle</source>
        <translation>passt jetzt; startet im nächsten Scheduling-Zyklus</translation>
    </message>
    <message>
        <source>the GPUs it fits on are reserved (maintenance or team reservation)</source>
        <translation>die GPUs, auf die der Job passt, sind reserviert (Wartungs- oder Team-Reservierung)</translation>
    </message>
    <message>
        <source>the GPUs it fits on are reserved for higher %1 (backfill reservations)</source>
        <translation>die GPUs, auf die der Job passt, sind für %1 mit höherer Priorität reserviert (Backfill-Reservierungen)</translation>
    </message>
    <message>
        <source>fragmentation: %1</source>
        <translation>Fragmentierung: %1</translation>
    </message>
    <message>
        <source>%1 GPUs free, but the largest %2 free block is %3 (the job needs %4)</source>
        <translation>%1 GPUs frei, aber der größte freie Block %2 umfasst %3 (der Job benötigt %4)</translation>
    </message>
    <message>
        <source>would start now if the topology constraint were relaxed to %1</source>
        <translation>würde jetzt starten, wenn die Topologievorgabe auf %1 gelockert würde</translation>
    </message>
    <message>
        <source>would start now if GPU %1 were repartitioned from %2 to %3 (%4 MIG changes, busy instances kept)</source>
        <translation>würde jetzt starten, wenn GPU %1 von %2 auf %3 neu partitioniert würde (%4 MIG-Änderungen, belegte Instanzen bleiben erhalten)</translation>
    </message>
    <message>
        <source>empty</source>
        <translation>leer</translation>
    </message>
    <message>
        <source>would start now if the guarantee of %1 on %2 were +%3 GPUs</source>
        <translation>würde jetzt starten, wenn die Garantie von Team %1 für %2 um %3 GPUs höher wäre</translation>
    </message>
    <message>
        <source>would start now by preempting %1 (%2 GPU-hours of work lost)</source>
        <translation>würde jetzt durch Verdrängen von %1 starten (%2 GPU-Stunden Arbeit gehen verloren)</translation>
    </message>
    <message>
        <source>would be considered in the next cycle once released</source>
        <translation>würde nach der Freigabe im nächsten Zyklus berücksichtigt</translation>
    </message>
    <message>
        <source>would start when %1 ends (~%2)</source>
        <translation>würde starten, wenn %1 endet (~%2)</translation>
    </message>
    <message>
        <source>would start when %1 end (~%2)</source>
        <translation>würde starten, wenn %1 enden (~%2)</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>submit job %1</source>
        <translation>Job %1 einreichen</translation>
    </message>
    <message>
        <source>cancel job %1</source>
        <translation>Job %1 abbrechen</translation>
    </message>
    <message>
        <source>hold job %1</source>
        <translation>Job %1 zurückhalten</translation>
    </message>
    <message>
        <source>release job %1</source>
        <translation>Job %1 freigeben</translation>
    </message>
    <message>
        <source>set priority of job %1 to %2</source>
        <translation>Priorität von Job %1 auf %2 setzen</translation>
    </message>
    <message>
        <source>move job %1 to the top</source>
        <translation>Job %1 nach oben verschieben</translation>
    </message>
    <message>
        <source>move job %1 to the bottom</source>
        <translation>Job %1 nach unten verschieben</translation>
    </message>
    <message>
        <source>move job %1 before job %2</source>
        <translation>Job %1 vor Job %2 verschieben</translation>
    </message>
    <message>
        <source>pin job %1 to gpus [%2] nodes [%3]</source>
        <translation>Job %1 auf GPUs [%2] Knoten [%3] festlegen</translation>
    </message>
    <message>
        <source>preempt job %1</source>
        <translation>Job %1 verdrängen</translation>
    </message>
    <message>
        <source>repartition %1 to %2</source>
        <translation>%1 auf %2 neu partitionieren</translation>
    </message>
    <message>
        <source>repartition %1 to %2 (force)</source>
        <translation>%1 auf %2 neu partitionieren (erzwungen)</translation>
    </message>
    <message>
        <source>drain node %1</source>
        <translation>Knoten %1 leeren</translation>
    </message>
    <message>
        <source>undrain node %1</source>
        <translation>Knoten %1 wieder in Betrieb nehmen</translation>
    </message>
    <message>
        <source>set quota of team %1 on %2</source>
        <translation>Kontingent von Team %1 für %2 setzen</translation>
    </message>
    <message>
        <source>create reservation %1 on [%2]</source>
        <translation>Reservierung %1 auf [%2] anlegen</translation>
    </message>
    <message>
        <source>delete reservation %1</source>
        <translation>Reservierung %1 löschen</translation>
    </message>
    <message>
        <source>submitted job %1</source>
        <translation>Job %1 eingereicht</translation>
    </message>
    <message>
        <source>job %1 cancelled</source>
        <translation>Job %1 abgebrochen</translation>
    </message>
    <message>
        <source>job %1 held</source>
        <translation>Job %1 zurückgehalten</translation>
    </message>
    <message>
        <source>job %1 released</source>
        <translation>Job %1 freigegeben</translation>
    </message>
    <message>
        <source>job %1 now %2</source>
        <translation>Job %1 hat jetzt die Prioritätsklasse %2</translation>
    </message>
    <message>
        <source>job %1 moved to the top of its priority</source>
        <translation>Job %1 an den Anfang seiner Prioritätsklasse verschoben</translation>
    </message>
    <message>
        <source>job %1 moved to the bottom of its priority</source>
        <translation>Job %1 ans Ende seiner Prioritätsklasse verschoben</translation>
    </message>
    <message>
        <source>job %1 moved ahead of job %2</source>
        <translation>Job %1 vor Job %2 verschoben</translation>
    </message>
    <message>
        <source>job %1 pinned to %2 GPU(s)</source>
        <translation>Job %1 auf %2 GPU(s) festgelegt</translation>
    </message>
    <message>
        <source>job %1 unpinned</source>
        <translation>Festlegung von Job %1 aufgehoben</translation>
    </message>
    <message>
        <source>job %1 preempted</source>
        <translation>Job %1 verdrängt</translation>
    </message>
    <message>
        <source>GPU %1 repartitioned to %2</source>
        <translation>GPU %1 auf %2 neu partitioniert</translation>
    </message>
    <message>
        <source>node %1 stays drained (%2)</source>
        <translation>Knoten %1 bleibt geleert (%2)</translation>
    </message>
    <message>
        <source>node %1 drained</source>
        <translation>Knoten %1 geleert</translation>
    </message>
    <message>
        <source>node %1 drained (%2)</source>
        <translation>Knoten %1 geleert (%2)</translation>
    </message>
    <message>
        <source>node %1 back in service</source>
        <translation>Knoten %1 wieder in Betrieb</translation>
    </message>
    <message>
        <source>quota of team %1 on %2 set to %3 guaranteed, %4 borrow</source>
        <translation>Kontingent von Team %1 für %2 auf %3 garantiert, %4 ausleihbar gesetzt</translation>
    </message>
    <message>
        <source>reservation %1 created</source>
        <translation>Reservierung %1 angelegt</translation>
    </message>
    <message>
        <source>reservation %1 deleted</source>
        <translation>Reservierung %1 gelöscht</translation>
    </message>
    <message>
        <source>dry run: %1; %2</source>
        <translation>Probelauf: %1; %2</translation>
    </message>
    <message>
        <source>%1 job(s) would start</source>
        <translation>%1 Job(s) würden starten</translation>
    </message>
    <message>
        <source>%1 job(s) would start (%2)</source>
        <translation>%1 Job(s) würden starten (%2)</translation>
    </message>
    <message>
        <source>%1 preempted</source>
        <translation>%1 verdrängt</translation>
    </message>
    <message>
        <source>%1 preempted (%2)</source>
        <translation>%1 verdrängt (%2)</translation>
    </message>
    <message>
        <source>%1 stopped (%2)</source>
        <translation>%1 gestoppt (%2)</translation>
    </message>
    <message>
        <source>%1 GPU-hours lost</source>
        <translation>%1 GPU-Stunden verloren</translation>
    </message>
    <message>
        <source>warning: %1</source>
        <translation>Warnung: %1</translation>
    </message>
    <message>
        <source>no job %1</source>
        <translation>Job %1 existiert nicht</translation>
    </message>
    <message>
        <source>no node %1</source>
        <translation>Knoten %1 existiert nicht</translation>
    </message>
    <message>
        <source>unknown GPU &apos;%1&apos; (expected node/index)</source>
        <translation>unbekannte GPU &apos;%1&apos; (erwartet: Knoten/Index)</translation>
    </message>
    <message>
        <source>unknown node &apos;%1&apos;</source>
        <translation>unbekannter Knoten &apos;%1&apos;</translation>
    </message>
    <message>
        <source>job %1 is not pending</source>
        <translation>Job %1 ist nicht wartend</translation>
    </message>
    <message>
        <source>job %1 is not a pending job</source>
        <translation>Job %1 ist kein wartender Job</translation>
    </message>
    <message>
        <source>GPU %1 is not in MIG mode</source>
        <translation>GPU %1 ist nicht im MIG-Modus</translation>
    </message>
    <message>
        <source>node %1 is already drained</source>
        <translation>Knoten %1 ist bereits geleert</translation>
    </message>
    <message>
        <source>node %1 is not drained</source>
        <translation>Knoten %1 ist nicht geleert</translation>
    </message>
    <message>
        <source>quota key &apos;%1&apos; is neither a GPU model of this cluster, &apos;pool:NAME&apos; nor &apos;*&apos;</source>
        <translation>Kontingentschlüssel &apos;%1&apos; ist weder ein GPU-Modell dieses Clusters noch &apos;pool:NAME&apos; oder &apos;*&apos;</translation>
    </message>
    <message>
        <source>a reservation needs at least one node</source>
        <translation>eine Reservierung braucht mindestens einen Knoten</translation>
    </message>
    <message>
        <source>job %1 is already %2</source>
        <translation>Job %1 ist bereits %2</translation>
    </message>
    <message>
        <source>job %1 is %2; only pending jobs can be held or released</source>
        <translation>Job %1 ist im Zustand „%2“; nur wartende Jobs können zurückgehalten oder freigegeben werden</translation>
    </message>
    <message>
        <source>job %1 is already held</source>
        <translation>Job %1 ist bereits zurückgehalten</translation>
    </message>
    <message>
        <source>job %1 is not held</source>
        <translation>Job %1 ist nicht zurückgehalten</translation>
    </message>
    <message>
        <source>job %1 has ended</source>
        <translation>Job %1 ist beendet</translation>
    </message>
    <message>
        <source>unknown priority class &apos;%1&apos; (known: %2)</source>
        <translation>unbekannte Prioritätsklasse &apos;%1&apos; (bekannt: %2)</translation>
    </message>
    <message>
        <source>job %1 is %2; only pending jobs can be pinned</source>
        <translation>Job %1 ist im Zustand „%2“; nur wartende Jobs können festgelegt werden</translation>
    </message>
    <message>
        <source>job %1 needs %2 GPUs; the pin names %3</source>
        <translation>Job %1 benötigt %2 GPUs; die Festlegung nennt %3</translation>
    </message>
    <message>
        <source>job %1 is %2, not running</source>
        <translation>Job %1 ist im Zustand „%2“ und läuft nicht</translation>
    </message>
    <message>
        <source>node %1 still runs job %2</source>
        <translation>Knoten %1 führt noch Job %2 aus</translation>
    </message>
    <message>
        <source>the new layout removes busy instances of job(s) %1 (keep them at the same start, or force to preempt them)</source>
        <translation>das neue Layout entfernt belegte Instanzen von Job(s) %1 (an derselben Startposition belassen oder erzwingen, um sie zu verdrängen)</translation>
    </message>
    <message>
        <source>team %1 would use %2 %3 GPUs under the new quota, above guaranteed + borrow %4 (preempt or wait first)</source>
        <translation>Team %1 würde unter dem neuen Kontingent %2 %3 GPUs nutzen, mehr als garantiert + geliehen %4 (zuerst verdrängen oder abwarten)</translation>
    </message>
    <message>
        <source>valid</source>
        <translation>gültig</translation>
    </message>
    <message>
        <source>not placed</source>
        <translation>nicht platziert</translation>
    </message>
    <message>
        <source>check 1 (allowed start)</source>
        <translation>Prüfung 1 (zulässige Startposition)</translation>
    </message>
    <message>
        <source>check 2 (memory overlap)</source>
        <translation>Prüfung 2 (Speicherüberlappung)</translation>
    </message>
    <message>
        <source>check 3 (instance count)</source>
        <translation>Prüfung 3 (Instanzanzahl)</translation>
    </message>
    <message>
        <source>check 4 (engines)</source>
        <translation>Prüfung 4 (Engines)</translation>
    </message>
    <message>
        <source>check 5 (compute slices)</source>
        <translation>Prüfung 5 (Rechen-Slices)</translation>
    </message>
    <message>
        <source>compute instances</source>
        <translation>Compute-Instanzen</translation>
    </message>
    <message>
        <source>%1 failed: %2</source>
        <translation>%1 fehlgeschlagen: %2</translation>
    </message>
    <message>
        <source>instance %1 has no start slice (write it as %2@START)</source>
        <translation>Instanz %1 hat keinen Start-Slice (als %2@START schreiben)</translation>
    </message>
    <message>
        <source>%1 cannot start at memory slice %2; %3 may start only at {%4} on %5</source>
        <translation>%1 kann nicht an Speicher-Slice %2 beginnen; %3 darf auf %5 nur an {%4} beginnen</translation>
    </message>
    <message>
        <source>slice %1</source>
        <translation>Slice %1</translation>
    </message>
    <message>
        <source>slices %1-%2</source>
        <translation>Slices %1-%2</translation>
    </message>
    <message>
        <source>%1 (%2) overlaps %3 (%4)</source>
        <translation>%1 (%2) überlappt %3 (%4)</translation>
    </message>
    <message>
        <source>more than 1 instance of %1 on one %2 (%3 is instance #2)</source>
        <translation>mehr als 1 Instanz von %1 auf einer %2 (%3 ist Instanz #2)</translation>
    </message>
    <message>
        <source>more than %1 instances of %2 on one %3 (%4 is instance #%5)</source>
        <translation>mehr als %1 Instanzen von %2 auf einer %3 (%4 ist Instanz #%5)</translation>
    </message>
    <message>
        <source>adding %1 needs %2 %3 but a %4 has %5</source>
        <translation>das Hinzufügen von %1 erfordert %2 %3, aber eine %4 hat %5</translation>
    </message>
    <message>
        <source>%1 (at most one +me instance per GPU)</source>
        <translation>%1 (höchstens eine +me-Instanz pro GPU)</translation>
    </message>
    <message>
        <source>copy engines (CE)</source>
        <translation>Copy-Engines (CE)</translation>
    </message>
    <message>
        <source>video decoders (NVDEC)</source>
        <translation>Videodecoder (NVDEC)</translation>
    </message>
    <message>
        <source>video encoders (NVENC)</source>
        <translation>Videoencoder (NVENC)</translation>
    </message>
    <message>
        <source>JPEG decoders (NVJPG)</source>
        <translation>JPEG-Decoder (NVJPG)</translation>
    </message>
    <message>
        <source>optical-flow accelerators (OFA)</source>
        <translation>Optical-Flow-Beschleuniger (OFA)</translation>
    </message>
    <message>
        <source>engines</source>
        <translation>Engines</translation>
    </message>
    <message>
        <source>adding %1 exceeds the GPU&apos;s %2 compute slices</source>
        <translation>das Hinzufügen von %1 überschreitet die %2 Rechen-Slices der GPU</translation>
    </message>
    <message>
        <source>the compute instances of %1 do not fit: the GPU catalog has no compute_instances table for %2, so a GPU instance holds one compute instance spanning all its %3 compute slices</source>
        <translation>die Compute-Instanzen von %1 passen nicht: Der GPU-Katalog hat keine compute_instances-Tabelle für %2, daher enthält eine GPU-Instanz genau eine Compute-Instanz über alle ihre %3 Rechen-Slices</translation>
    </message>
    <message>
        <source>the compute instances of %1 do not fit a %2-slice GPU instance (allowed CI sizes and counts: mig.compute_instances of %3 in the GPU catalog)</source>
        <translation>die Compute-Instanzen von %1 passen nicht in eine GPU-Instanz mit %2 Slices (zulässige CI-Größen und -Anzahlen: mig.compute_instances von %3 im GPU-Katalog)</translation>
    </message>
    <message>
        <source>%1 and %2 more</source>
        <translation>%1 und %2 weitere</translation>
    </message>
    <message>
        <source>running since %1 on %2</source>
        <translation>läuft seit %1 auf %2</translation>
    </message>
    <message>
        <source>every instance of the new layout needs a start</source>
        <translation>jede Instanz des neuen Layouts braucht einen Start-Slice</translation>
    </message>
    <message>
        <source>the instance at slice %1 is busy</source>
        <translation>die Instanz bei Slice %1 ist belegt</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>t=%1 %2: %3</source>
        <translation>t=%1 %2: %3</translation>
    </message>
    <message>
        <source>submitted</source>
        <translation>eingereicht</translation>
    </message>
    <message>
        <source>started</source>
        <translation>gestartet</translation>
    </message>
    <message>
        <source>requeued</source>
        <translation>erneut eingereiht</translation>
    </message>
    <message>
        <source>held</source>
        <translation>zurückgehalten</translation>
    </message>
    <message>
        <source>released</source>
        <translation>freigegeben</translation>
    </message>
    <message>
        <source>command</source>
        <translation>Befehl</translation>
    </message>
    <message>
        <source>submitted on hold</source>
        <translation>im zurückgehaltenen Zustand eingereicht</translation>
    </message>
    <message>
        <source>admitted: %1</source>
        <translation>zugelassen: %1</translation>
    </message>
    <message>
        <source>placed</source>
        <translation>platziert</translation>
    </message>
    <message>
        <source>backfilled: ends before the reservations of higher jobs or avoids their GPUs</source>
        <translation>per Backfill eingeplant: endet vor den Reservierungen von Jobs mit höherer Priorität oder meidet deren GPUs</translation>
    </message>
    <message>
        <source>after preempting %1; was blocked: %2</source>
        <translation>nach Verdrängung von %1; war blockiert: %2</translation>
    </message>
    <message>
        <source>restored from a snapshot (running since t=%1)</source>
        <translation>aus einem Snapshot wiederhergestellt (läuft seit t=%1)</translation>
    </message>
    <message>
        <source>started on %1 (spans one %2)</source>
        <translation>gestartet auf %1 (innerhalb einer Einheit der Ebene %2)</translation>
    </message>
    <message>
        <source>preempted by job %1 (%2, team %3): %4; work lost %5 min since its last checkpoint (%6 GPU-hours)</source>
        <translation>verdrängt durch Job %1 (%2, Team %3): %4; seit dem letzten Checkpoint gehen %5&#xa0;min Arbeit verloren (%6 GPU-Stunden)</translation>
    </message>
    <message>
        <source>preempted by job %1 (%2, team %3): %4; work lost %5 min since its start (%6 GPU-hours)</source>
        <translation>verdrängt durch Job %1 (%2, Team %3): %4; seit dem Start gehen %5&#xa0;min Arbeit verloren (%6 GPU-Stunden)</translation>
    </message>
    <message>
        <source>its team is borrowing GPUs that team %1 is guaranteed</source>
        <translation>sein Team leiht GPUs, die Team %1 garantiert sind</translation>
    </message>
    <message>
        <source>higher priority (%1 &gt; %2)</source>
        <translation>höhere Priorität (%1 &gt; %2)</translation>
    </message>
    <message>
        <source>preempted by operator %1</source>
        <translation>von Operator %1 verdrängt</translation>
    </message>
    <message>
        <source>its MIG instance was repartitioned away</source>
        <translation>seine MIG-Instanz wurde durch Neupartitionierung entfernt</translation>
    </message>
    <message>
        <source>node %1 failed</source>
        <translation>Knoten %1 ausgefallen</translation>
    </message>
    <message>
        <source>GPU %1 fault (Xid %2)</source>
        <translation>Fehler an GPU %1 (Xid %2)</translation>
    </message>
    <message>
        <source>GPU %1 is being repartitioned</source>
        <translation>GPU %1 wird neu partitioniert</translation>
    </message>
    <message>
        <source>GPU %1 fault (Xid %2, %3)</source>
        <translation>Fehler an GPU %1 (Xid %2, %3)</translation>
    </message>
    <message>
        <source>requeued with %1 min of work kept</source>
        <translation>erneut eingereiht, %1&#xa0;min Arbeit bleiben erhalten</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>beendet</translation>
    </message>
    <message>
        <source>finished (simulated)</source>
        <translation>beendet (simuliert)</translation>
    </message>
    <message>
        <source>time limit reached</source>
        <translation>Zeitlimit erreicht</translation>
    </message>
    <message>
        <source>the job failed (as in the trace)</source>
        <translation>der Job ist fehlgeschlagen (wie im Trace)</translation>
    </message>
    <message>
        <source>cancelled by %1</source>
        <translation>von %1 abgebrochen</translation>
    </message>
    <message>
        <source>held by %1</source>
        <translation>von %1 zurückgehalten</translation>
    </message>
    <message>
        <source>released by %1</source>
        <translation>von %1 freigegeben</translation>
    </message>
    <message>
        <source>%1: applied: %2</source>
        <translation>%1: angewendet: %2</translation>
    </message>
    <message>
        <source>%1: refused: %2</source>
        <translation>%1: abgelehnt: %2</translation>
    </message>
    <message>
        <source>dry run: %1: %2</source>
        <translation>Probelauf: %1: %2</translation>
    </message>
    <message>
        <source>job %1 on %2 has no runtime estimate and may still run when reservation %3 starts at t=%4</source>
        <translation>Job %1 auf %2 hat keine Laufzeitschätzung und läuft möglicherweise noch, wenn Reservierung %3 bei t=%4 beginnt</translation>
    </message>
    <message>
        <source>job %1 on %2 is expected to run until t=%3 when reservation %4 starts at t=%5</source>
        <translation>Job %1 auf %2 läuft voraussichtlich bis t=%3, Reservierung %4 beginnt aber bei t=%5</translation>
    </message>
    <message>
        <source>job %1 already exists</source>
        <translation>Job %1 existiert bereits</translation>
    </message>
    <message>
        <source>a job needs at least one task</source>
        <translation>ein Job braucht mindestens einen Task</translation>
    </message>
    <message>
        <source>job %1 requests no GPU (give gpus, mig or fraction)</source>
        <translation>Job %1 fordert keine GPU an (gpus, mig oder fraction angeben)</translation>
    </message>
    <message>
        <source>unknown team &apos;%1&apos;</source>
        <translation>unbekanntes Team &apos;%1&apos;</translation>
    </message>
    <message>
        <source>pin names unknown GPU &apos;%1&apos;</source>
        <translation>die Festlegung nennt eine unbekannte GPU &apos;%1&apos;</translation>
    </message>
    <message>
        <source>pin names unknown node &apos;%1&apos;</source>
        <translation>die Festlegung nennt einen unbekannten Knoten &apos;%1&apos;</translation>
    </message>
    <message>
        <source>a reservation needs an id</source>
        <translation>eine Reservierung braucht eine ID</translation>
    </message>
    <message>
        <source>reservation &apos;%1&apos; already exists</source>
        <translation>Reservierung &apos;%1&apos; existiert bereits</translation>
    </message>
    <message>
        <source>a reservation must end after it starts</source>
        <translation>eine Reservierung muss nach ihrem Beginn enden</translation>
    </message>
    <message>
        <source>no reservation &apos;%1&apos;</source>
        <translation>Reservierung &apos;%1&apos; existiert nicht</translation>
    </message>
    <message>
        <source>guaranteed and borrow must be &gt;= 0</source>
        <translation>garantiert und ausleihbar müssen &gt;= 0 sein</translation>
    </message>
    <message>
        <source>cannot lend more than the guaranteed %1</source>
        <translation>kann nicht mehr als die garantierten %1 verleihen</translation>
    </message>
    <message>
        <source>in MIG layout item &apos;%1&apos;: %2</source>
        <translation>im MIG-Layout-Element &apos;%1&apos;: %2</translation>
    </message>
    <message>
        <source>compute instance &apos;%1&apos; must look like &apos;2c&apos;</source>
        <translation>Compute-Instanz &apos;%1&apos; muss die Form &apos;2c&apos; haben</translation>
    </message>
    <message>
        <source>compute instance &apos;%1&apos; must have 1..%2 compute slices</source>
        <translation>Compute-Instanz &apos;%1&apos; muss 1..%2 Rechen-Slices haben</translation>
    </message>
    <message>
        <source>too many compute instances</source>
        <translation>zu viele Compute-Instanzen</translation>
    </message>
    <message>
        <source>GPU model &apos;%1&apos; is not MIG capable</source>
        <translation>GPU-Modell &apos;%1&apos; unterstützt kein MIG</translation>
    </message>
    <message>
        <source>empty item in MIG layout &apos;%1&apos;</source>
        <translation>leeres Element im MIG-Layout &apos;%1&apos;</translation>
    </message>
    <message>
        <source>repeat count must be 1..%1</source>
        <translation>die Wiederholungsanzahl muss 1..%1 sein</translation>
    </message>
    <message>
        <source>missing &apos;)&apos; after compute instances</source>
        <translation>&apos;)&apos; fehlt nach den Compute-Instanzen</translation>
    </message>
    <message>
        <source>start must be a memory slice 0..%1</source>
        <translation>der Start muss ein Speicher-Slice 0..%1 sein</translation>
    </message>
    <message>
        <source>a repeated item cannot have a fixed start</source>
        <translation>ein wiederholtes Element kann keine feste Startposition haben</translation>
    </message>
    <message>
        <source>unknown profile &apos;%1&apos; for %2 (profiles: %3)</source>
        <translation>unbekanntes Profil &apos;%1&apos; für %2 (Profile: %3)</translation>
    </message>
    <message>
        <source>&apos;()&apos; lists no compute instances</source>
        <translation>&apos;()&apos; nennt keine Compute-Instanzen</translation>
    </message>
    <message>
        <source>MIG layout has more than %1 instances</source>
        <translation>das MIG-Layout hat mehr als %1 Instanzen</translation>
    </message>
    <message>
        <source>busy instance %1 is not in the target; a repartition may not destroy running work (drain it first, or add it to the target)</source>
        <translation>die belegte Instanz %1 ist nicht im Ziel; eine Neupartitionierung darf keine laufende Arbeit zerstören (zuerst leeren oder zum Ziel hinzufügen)</translation>
    </message>
    <message>
        <source>current layout is invalid: %1</source>
        <translation>das aktuelle Layout ist ungültig: %1</translation>
    </message>
    <message>
        <source>target is impossible on any layout: %1</source>
        <translation>das Ziel ist in keinem Layout möglich: %1</translation>
    </message>
    <message>
        <source>%1 x %2 exceeds its maximum of %3 per GPU</source>
        <translation>%1 x %2 überschreitet das Maximum von %3 pro GPU</translation>
    </message>
    <message>
        <source>the target needs %1 memory slices; a %2 has %3</source>
        <translation>das Ziel benötigt %1 Speicher-Slices; eine %2 hat %3</translation>
    </message>
    <message>
        <source>the target needs %1 compute slices; a %2 has %3</source>
        <translation>das Ziel benötigt %1 Rechen-Slices; eine %2 hat %3</translation>
    </message>
    <message>
        <source>the target needs more engines than a %1 has (CE %2/%3, DEC %4/%5, JPEG %6/%7, OFA %8/%9; e.g. two +me instances)</source>
        <translation>das Ziel benötigt mehr Engines, als eine %1 hat (CE %2/%3, DEC %4/%5, JPEG %6/%7, OFA %8/%9; z.&#xa0;B. zwei +me-Instanzen)</translation>
    </message>
    <message>
        <source>the layout search gave up after %1 attempts; give explicit starts (PROFILE@START) for some instances</source>
        <translation>die Layout-Suche hat nach %1 Versuchen aufgegeben; für einige Instanzen explizite Startpositionen angeben (PROFILE@START)</translation>
    </message>
    <message>
        <source>check 1 (allowed start) failed: %1 cannot start at slice %2; %3 may start only at {%4}</source>
        <translation>Prüfung 1 (zulässige Startposition) fehlgeschlagen: %1 kann nicht an Slice %2 beginnen; %3 darf nur an {%4} beginnen</translation>
    </message>
    <message>
        <source>@%1 blocked by %2</source>
        <translation>@%1 blockiert durch %2</translation>
    </message>
    <message>
        <source>count/engine limits</source>
        <translation>Anzahl-/Engine-Grenzen</translation>
    </message>
    <message>
        <source>%1 (busy)</source>
        <translation>%1 (belegt)</translation>
    </message>
    <message>
        <source>nothing</source>
        <translation>nichts</translation>
    </message>
    <message>
        <source>no valid layout holds the target: after placing %1, %2 fits nowhere (%3)</source>
        <translation>kein gültiges Layout fasst das Ziel (bereits platziert: %1): %2 passt nirgends (%3)</translation>
    </message>
    <message>
        <source>node failure</source>
        <translation>Knotenausfall</translation>
    </message>
    <message>
        <source>Xid %1 on GPU %2</source>
        <translation>Xid %1 auf GPU %2</translation>
    </message>
    <message>
        <source>MIG repartition of GPU %1</source>
        <translation>MIG-Neupartitionierung von GPU %1</translation>
    </message>
    <message>
        <source>not valid UTF-8</source>
        <translation>kein gültiges UTF-8</translation>
    </message>
    <message>
        <source>contains a control character</source>
        <translation>enthält ein Steuerzeichen</translation>
    </message>
    <message>
        <source>%1 characters long; at most %2 allowed</source>
        <translation>%1 Zeichen lang; höchstens %2 erlaubt</translation>
    </message>
    <message>
        <source>%1 items; at most %2 allowed</source>
        <translation>%1 Einträge; höchstens %2 erlaubt</translation>
    </message>
    <message>
        <source>none of the job&apos;s GPU models (%1) is in this cluster (it has %2)</source>
        <translation>keines der GPU-Modelle des Jobs (%1) gibt es in diesem Cluster (er hat %2)</translation>
    </message>
    <message>
        <source>no MIG GPU the job may use offers profile %1 (their profiles: %2)</source>
        <translation>keine MIG-GPU, die der Job nutzen darf, bietet das Profil %1 (ihre Profile: %2)</translation>
    </message>
    <message>
        <source>the job asks for MIG profile %1, but no GPU it may use is in MIG mode</source>
        <translation>der Job verlangt das MIG-Profil %1, aber keine GPU, die er nutzen darf, ist im MIG-Modus</translation>
    </message>
    <message>
        <source>no pool %1 in this cluster (its pools: %2)</source>
        <translation>kein Pool %1 in diesem Cluster (seine Pools: %2)</translation>
    </message>
    <message>
        <source>can never run on this cluster, even empty with every node up: %1</source>
        <translation>kann auf diesem Cluster nie laufen, auch leer und mit allen Knoten in Betrieb nicht: %1</translation>
    </message>
    <message>
        <source>node %1 undrained, but still out: %2</source>
        <translation>Knoten %1 freigegeben, aber weiterhin außer Betrieb: %2</translation>
    </message>
    <message>
        <source>give a command or a batch script, not both</source>
        <translation>einen Befehl oder ein Batch-Skript angeben, nicht beides</translation>
    </message>
    <message>
        <source>the time limit cannot be negative</source>
        <translation>das Zeitlimit darf nicht negativ sein</translation>
    </message>
    <message>
        <source>no GPU runs MPS</source>
        <translation>keine GPU führt MPS aus</translation>
    </message>
    <message>
        <source>no MPS server with room</source>
        <translation>kein MPS-Server mit Platz</translation>
    </message>
    <message>
        <source>MPS tasks of %1 % active threads</source>
        <translation>MPS-Tasks mit je %1 % aktiven Threads</translation>
    </message>
    <message>
        <source>GPU %1 runs MPS clients of team %2; team %3 may not share it</source>
        <translation>GPU %1 führt MPS-Clients von Team %2 aus; Team %3 darf sie nicht mitnutzen</translation>
    </message>
    <message>
        <source>GPU %1 runs MPS clients of user %2; user %3 may not share it</source>
        <translation>GPU %1 führt MPS-Clients von Benutzer %2 aus; Benutzer %3 darf sie nicht mitnutzen</translation>
    </message>
    <message>
        <source>GPU %1 shares MPS by user, and the job names no user</source>
        <translation>GPU %1 teilt MPS nach Benutzer, und der Job nennt keinen Benutzer</translation>
    </message>
    <message>
        <source>GPU %1 has all %2 MPS clients its architecture allows</source>
        <translation>GPU %1 hat bereits alle %2 MPS-Clients, die ihre Architektur erlaubt</translation>
    </message>
    <message>
        <source>GPU %1 has %2 % of its MPS active threads left; the task asks %3 %</source>
        <translation>GPU %1 hat noch %2 % ihrer aktiven MPS-Threads frei; der Task verlangt %3 %</translation>
    </message>
    <message>
        <source>the MPS memory limit does not fit: GPU %1 has %2 MiB unpinned; the task pins %3 MiB</source>
        <translation>das MPS-Speicherlimit passt nicht: GPU %1 hat %2 MiB nicht reserviert; der Task reserviert %3 MiB</translation>
    </message>
    <message>
        <source>GPU %1 does not run MPS</source>
        <translation>GPU %1 führt kein MPS aus</translation>
    </message>
    <message>
        <source>GPU %1 is on a node that is not up</source>
        <translation>GPU %1 liegt auf einem Knoten, der nicht bereit ist</translation>
    </message>
    <message>
        <source>the job already has a client on GPU %1</source>
        <translation>der Job hat bereits einen Client auf GPU %1</translation>
    </message>
    <message>
        <source>node %1 serves MPS on GPU %2 only (one GPU per node at a time, Slurm&apos;s one_sharing); %3</source>
        <translation>Knoten %1 bedient MPS nur auf GPU %2 (eine GPU pro Knoten zugleich, one_sharing von Slurm); %3</translation>
    </message>
    <message>
        <source>the client may join GPU %1</source>
        <translation>der Client kann GPU %1 beitreten</translation>
    </message>
    <message>
        <source>no GPU runs MPS in the job&apos;s pool and models</source>
        <translation>keine GPU im Pool und mit den Modellen des Jobs führt MPS aus</translation>
    </message>
    <message>
        <source>an MPS active-thread percentage is 1 to 100, not %1</source>
        <translation>ein MPS-Anteil aktiver Threads liegt zwischen 1 und 100, nicht %1</translation>
    </message>
    <message>
        <source>an MPS request needs a pinned device memory limit: MPS does not isolate GPU memory</source>
        <translation>eine MPS-Anforderung braucht ein Limit für reservierten Gerätespeicher: MPS isoliert den GPU-Speicher nicht</translation>
    </message>
    <message>
        <source>No mode could run on this cluster.</source>
        <translation>Auf diesem Cluster konnte kein Modus laufen.</translation>
    </message>
    <message>
        <source>No mode meets the wait targets on all %1 GPUs.</source>
        <translation>Kein Modus erreicht die Wartezeitziele auf allen %1 GPUs.</translation>
    </message>
    <message>
        <source>%1 meets the wait targets on all %2 GPUs (the fewest GPUs needed were not searched for).</source>
        <translation>%1 erreicht die Wartezeitziele auf allen %2 GPUs (die wenigsten nötigen GPUs wurden nicht gesucht).</translation>
    </message>
    <message>
        <source>%1 meet the wait targets on all %2 GPUs (the fewest GPUs needed were not searched for).</source>
        <translation>%1 erreichen die Wartezeitziele auf allen %2 GPUs (die wenigsten nötigen GPUs wurden nicht gesucht).</translation>
    </message>
    <message>
        <source>No mode meets the wait targets even on all %1 GPUs.</source>
        <translation>Kein Modus erreicht die Wartezeitziele, selbst auf allen %1 GPUs nicht.</translation>
    </message>
    <message>
        <source>%1 meets the wait targets with the fewest GPUs: %2 of %3.</source>
        <translation>%1 erreicht die Wartezeitziele mit den wenigsten GPUs: %2 von %3.</translation>
    </message>
    <message>
        <source>%1 tie for the wait targets with the fewest GPUs: %2 of %3.</source>
        <translation>%1 erreichen die Wartezeitziele gleichauf mit den wenigsten GPUs: %2 von %3.</translation>
    </message>
    <message>
        <source>%1 needs %2.</source>
        <translation>%1 braucht %2.</translation>
    </message>
    <message>
        <source>%1 misses them even on all %2.</source>
        <translation>%1 verfehlt sie selbst auf allen %2.</translation>
    </message>
    <message>
        <source>On the whole cluster the GPUs are busiest under %1 (%2 of capacity), and the least capacity is stranded under %3 (%4 GPUs on average).</source>
        <translation>Auf dem ganzen Cluster sind die GPUs unter %1 am stärksten ausgelastet (%2 der Kapazität), und am wenigsten Kapazität bleibt unter %3 ungenutzt blockiert (im Mittel %4 GPUs).</translation>
    </message>
    <message>
        <source>Time-slicing and MPS put jobs on one GPU without fault isolation (one job&apos;s fault or memory overrun can end the others): %1 shared a GPU with another job.</source>
        <translation>Time-Slicing und MPS legen Jobs ohne Fehlerisolation auf eine GPU (der Fehler oder Speicherüberlauf eines Jobs kann die anderen beenden): %1 teilten sich eine GPU mit einem anderen Job.</translation>
    </message>
    <message>
        <source>%1 %2 of %3 jobs</source>
        <translation>%1 %2 von %3 Jobs</translation>
    </message>
    <message>
        <source>MIG and whole GPUs isolate every job.</source>
        <translation>MIG und ganze GPUs isolieren jeden Job.</translation>
    </message>
    <message>
        <source>Search for the GPUs needed (without --no-search) to compare the modes&apos; cost.</source>
        <translation>Suchen Sie die nötigen GPUs (ohne --no-search), um die Kosten der Modi zu vergleichen.</translation>
    </message>
    <message>
        <source>Add GPUs, or relax the targets, before choosing a mode.</source>
        <translation>Fügen Sie GPUs hinzu oder lockern Sie die Ziele, bevor Sie einen Modus wählen.</translation>
    </message>
    <message>
        <source>Recommendation: %1: no mode needs fewer GPUs, and it isolates every job.</source>
        <translation>Empfehlung: %1: Kein Modus braucht weniger GPUs, und dieser isoliert jeden Job.</translation>
    </message>
    <message>
        <source>Recommendation: %1, if the jobs sharing a GPU may share its faults; no isolating mode meets the targets on this cluster.</source>
        <translation>Empfehlung: %1, wenn Jobs, die sich eine GPU teilen, auch deren Fehler teilen dürfen; kein isolierender Modus erreicht die Ziele auf diesem Cluster.</translation>
    </message>
    <message>
        <source>Recommendation: %1: it needs %2 GPUs more than %3 (%4) and isolates every job.</source>
        <translation>Empfehlung: %1: Er braucht %2 GPUs mehr als %3 (%4) und isoliert jeden Job.</translation>
    </message>
    <message>
        <source>Recommendation: %1 saves %2 GPUs against %3 (%4), if the jobs sharing a GPU may share its faults; otherwise %3.</source>
        <translation>Empfehlung: %1 spart %2 GPUs gegenüber %3 (%4), wenn Jobs, die sich eine GPU teilen, auch deren Fehler teilen dürfen; sonst %3.</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::ClusterTreeModel</name>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>GPU model</source>
        <translation>GPU-Modell</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPUs</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Pool</source>
        <translation>Pool</translation>
    </message>
    <message>
        <source>Detail</source>
        <translation>Details</translation>
    </message>
    <message>
        <source>exclusive</source>
        <translation>exklusiv</translation>
    </message>
    <message>
        <source>time-sliced x%1</source>
        <translation>zeitgeteilt x%1</translation>
    </message>
    <message>
        <source>MIG %1, MPS in the instances</source>
        <translation>MIG %1, MPS in den Instanzen</translation>
    </message>
    <message>
        <source>MPS, thread budget %1%</source>
        <translation>MPS, Thread-Budget %1%</translation>
    </message>
    <message>
        <source>MIG %1</source>
        <translation>MIG %1</translation>
    </message>
    <message>
        <source>spine, 1 leaf</source>
        <translation>Spine, 1 Leaf</translation>
    </message>
    <message>
        <source>spine, %1 leafs</source>
        <translation>Spine, %1 Leafs</translation>
    </message>
    <message>
        <source>leaf, 1 node</source>
        <translation>Leaf, 1 Knoten</translation>
    </message>
    <message>
        <source>leaf, %1 nodes</source>
        <translation>Leaf, %1 Knoten</translation>
    </message>
    <message>
        <source>template %1</source>
        <translation>Vorlage %1</translation>
    </message>
    <message>
        <source>MPS, thread budget %1%, one GPU per node at a time</source>
        <translation>MPS, Thread-Budget %1%, eine GPU pro Knoten zugleich</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::GanttWidget</name>
    <message>
        <source>planned: %1</source>
        <translation>geplant: %1</translation>
    </message>
    <message>
        <source>Job %1 %2
Team %3, %4 task(s), %5 GPUs</source>
        <translation>Job %1 %2
Team %3, %4 Task(s), %5 GPUs</translation>
    </message>
    <message>
        <source>
Planned start %1 (in %2)</source>
        <translation>
Geplanter Start %1 (in %2)</translation>
    </message>
    <message>
        <source>
Started %1</source>
        <translation>
Gestartet %1</translation>
    </message>
    <message>
        <source>, estimated runtime %1</source>
        <translation>, geschätzte Laufzeit %1</translation>
    </message>
    <message>
        <source>, no runtime estimate</source>
        <translation>, keine Laufzeitschätzung</translation>
    </message>
    <message>
        <source>now</source>
        <translation>jetzt</translation>
    </message>
    <message>
        <source>Backfill reservation for job %1 %2
Team %3: its planned start, held on these GPUs</source>
        <translation>Backfill-Reservierung für Job %1 %2
Team %3: sein geplanter Start, auf diesen GPUs vorgehalten</translation>
    </message>
    <message>
        <source>Reservation %1, held for team %2</source>
        <translation>Reservierung %1, vorgehalten für Team %2</translation>
    </message>
    <message>
        <source>Maintenance reservation %1</source>
        <translation>Wartungsreservierung %1</translation>
    </message>
    <message>
        <source>
GPUs %1 on %2</source>
        <translation>
GPUs %1 auf %2</translation>
    </message>
    <message>
        <source>
From %1 (in %2)</source>
        <translation>
Ab %1 (in %2)</translation>
    </message>
    <message>
        <source>
Since %1</source>
        <translation>
Seit %1</translation>
    </message>
    <message>
        <source> until %1</source>
        <translation> bis %1</translation>
    </message>
    <message>
        <source>, open-ended</source>
        <translation>, ohne Ende</translation>
    </message>
    <message>
        <source>No running jobs, reservations or planned starts</source>
        <translation>Keine laufenden Jobs, Reservierungen oder geplanten Starts</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::HeatmapWidget</name>
    <message>
        <source>%1%</source>
        <translation>%1&#xa0;%</translation>
    </message>
    <message>
        <source>up</source>
        <translation>verfügbar</translation>
    </message>
    <message>
        <source>draining</source>
        <translation>wird geleert</translation>
    </message>
    <message>
        <source>drained</source>
        <translation>geleert</translation>
    </message>
    <message>
        <source>down</source>
        <translation>ausgefallen</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>unbekannt</translation>
    </message>
    <message>
        <source>Allocation</source>
        <translation>Belegung</translation>
    </message>
    <message>
        <source>Owning team</source>
        <translation>Zugehöriges Team</translation>
    </message>
    <message>
        <source>GPU utilization</source>
        <translation>GPU-Auslastung</translation>
    </message>
    <message>
        <source>SM active</source>
        <translation>SM aktiv</translation>
    </message>
    <message>
        <source>Allocated but idle</source>
        <translation>Belegt, aber ungenutzt</translation>
    </message>
    <message>
        <source>NVLink %1</source>
        <translation>NVLink %1</translation>
    </message>
    <message>
        <source>job %1</source>
        <translation>Job %1</translation>
    </message>
    <message>
        <source>free</source>
        <translation>frei</translation>
    </message>
    <message>
        <source>no telemetry</source>
        <translation>keine Telemetrie</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;%2 GPUs · pool %3 · state %4</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;%2 GPUs · Pool %3 · Zustand %4</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; GPU %2 · %3</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; GPU %2 · %3</translation>
    </message>
    <message>
        <source>leaf %1 · spine %2 · state %3</source>
        <translation>Leaf %1 · Spine %2 · Zustand %3</translation>
    </message>
    <message>
        <source>NVLink domain %1</source>
        <translation>NVLink-Domäne %1</translation>
    </message>
    <message>
        <source>allocated %1 · utilization %2 · SM active %3</source>
        <translation>belegt %1 · Auslastung %2 · SM aktiv %3</translation>
    </message>
    <message>
        <source>MIG layout %1</source>
        <translation>MIG-Layout %1</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>ungenutzt</translation>
    </message>
    <message>
        <source>%1 GPU</source>
        <translation>%1 GPU</translation>
    </message>
    <message>
        <source>job %1 · team %2 · %3</source>
        <translation>Job %1 · Team %2 · %3</translation>
    </message>
    <message>
        <source>shared by one team</source>
        <translation>von einem Team geteilt</translation>
    </message>
    <message>
        <source>shared by one user</source>
        <translation>von einem Benutzer geteilt</translation>
    </message>
    <message>
        <source>shared by anyone</source>
        <translation>von allen teilbar</translation>
    </message>
    <message>
        <source>MPS %1/%2 · %3/%4%</source>
        <translation>MPS %1/%2 · %3/%4%</translation>
    </message>
    <message>
        <source>MPS %1</source>
        <translation>MPS %1</translation>
    </message>
    <message>
        <source>MPS server</source>
        <translation>MPS-Server</translation>
    </message>
    <message>
        <source>MPS server of instance @%1</source>
        <translation>MPS-Server der Instanz @%1</translation>
    </message>
    <message>
        <source>%1: %2 of %3 clients · %4% of %5% active threads · %6 MiB pinned · %7</source>
        <translation>%1: %2 von %3 Clients · %4% von %5% aktiven Threads · %6 MiB reserviert · %7</translation>
    </message>
    <message>
        <source>MPS %1% active threads, %2 MiB pinned</source>
        <translation>MPS %1% aktive Threads, %2 MiB reserviert</translation>
    </message>
    <message>
        <source>instance %1, slices %2-%3: %4</source>
        <translation>Instanz %1, Slices %2-%3: %4</translation>
    </message>
    <message>
        <source>Tensor active</source>
        <translation>Tensor aktiv</translation>
    </message>
    <message>
        <source>Memory used</source>
        <translation>Speicher belegt</translation>
    </message>
    <message>
        <source>Power</source>
        <translation>Leistung</translation>
    </message>
    <message>
        <source>tensor active %1 · memory used %2 · power %3</source>
        <translation>Tensor aktiv %1 · Speicher belegt %2 · Leistung %3</translation>
    </message>
    <message>
        <source>node %1 is not in the cluster</source>
        <translation>Knoten %1 gehört nicht zum Cluster</translation>
    </message>
    <message>
        <source>node %1 is %2</source>
        <translation>Knoten %1 ist %2</translation>
    </message>
    <message>
        <source>GPU %1/%2 is held by job %3</source>
        <translation>GPU %1/%2 ist von Job %3 belegt</translation>
    </message>
    <message>
        <source>every GPU of %1 is in use</source>
        <translation>jede GPU von %1 ist belegt</translation>
    </message>
    <message>
        <source>the engine would keep it waiting (its request, quota or queue)</source>
        <translation>die Engine würde ihn warten lassen (Anforderung, Kontingent oder Warteschlange)</translation>
    </message>
    <message>
        <source>Refused: %1</source>
        <translation>Abgelehnt: %1</translation>
    </message>
    <message>
        <source>Would not start there now: %1</source>
        <translation>Würde dort jetzt nicht starten: %1</translation>
    </message>
    <message>
        <source>Would start now</source>
        <translation>Würde jetzt starten</translation>
    </message>
    <message>
        <source>Would start on %1</source>
        <translation>Würde auf %1 starten</translation>
    </message>
    <message numerus="yes">
        <source>preempting %n job(s), %1 GPU-hours lost</source>
        <translation>
            <numerusform>verdrängt %n Job, %1 GPU-Stunden verloren</numerusform>
            <numerusform>verdrängt %n Jobs, %1 GPU-Stunden verloren</numerusform>
        </translation>
    </message>
    <message>
        <source>Asking the engine…</source>
        <translation>Engine wird gefragt…</translation>
    </message>
    <message>
        <source>GPUs in %1 NUMA zones</source>
        <translation>GPUs in %1 NUMA-Zonen</translation>
    </message>
    <message>
        <source>NUMA zone %1</source>
        <translation>NUMA-Zone %1</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>Temperatur</translation>
    </message>
    <message>
        <source>Fragmentation (free, unusable for pending work)</source>
        <translation>Fragmentierung (frei, für wartende Arbeit unbrauchbar)</translation>
    </message>
    <message>
        <source>%1 °C</source>
        <translation>%1 °C</translation>
    </message>
    <message>
        <source>temperature %1</source>
        <translation>Temperatur %1</translation>
    </message>
    <message>
        <source>%1 free but unusable for the pending work</source>
        <translation>%1 frei, aber für die wartende Arbeit unbrauchbar</translation>
    </message>
    <message>
        <source>Health (GPU faults, node state)</source>
        <translation>Hardwarezustand (GPU-Fehler, Knoten)</translation>
    </message>
    <message>
        <source>GPU fault (Xid)</source>
        <translation>GPU-Fehler (Xid)</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message numerus="yes">
        <source>Xid %1: %2, for %n min</source>
        <translation>
            <numerusform>Xid %1: %2, seit %n Minute</numerusform>
            <numerusform>Xid %1: %2, seit %n Minuten</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>repair expected in %n min</source>
        <translation>
            <numerusform>Reparatur erwartet in %n Minute</numerusform>
            <numerusform>Reparatur erwartet in %n Minuten</numerusform>
        </translation>
    </message>
    <message>
        <source>GPU fault</source>
        <translation>GPU-Fehler</translation>
    </message>
    <message>
        <source>Holds:</source>
        <translation>Zurückgehalten von:</translation>
    </message>
    <message>
        <source>one GPU per node at a time</source>
        <translation>eine GPU pro Knoten zugleich</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::IdleGpuModel</name>
    <message>
        <source>d%1 %2</source>
        <translation>T%1 %2</translation>
    </message>
    <message>
        <source>n/a</source>
        <translation>k.&#xa0;A.</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Jobs</source>
        <translation>Jobs</translation>
    </message>
    <message>
        <source>Team</source>
        <translation>Team</translation>
    </message>
    <message>
        <source>Allocated</source>
        <translation>Belegt</translation>
    </message>
    <message>
        <source>Util</source>
        <translation>Auslastung</translation>
    </message>
    <message>
        <source>SM active</source>
        <translation>SM aktiv</translation>
    </message>
    <message>
        <source>Idle since</source>
        <translation>Ungenutzt seit</translation>
    </message>
    <message>
        <source>Idle for</source>
        <translation>Dauer ungenutzt</translation>
    </message>
    <message>
        <source>%1s</source>
        <translation>%1&#xa0;s</translation>
    </message>
    <message>
        <source>%1m</source>
        <translation>%1&#xa0;min</translation>
    </message>
    <message>
        <source>%1h %2m</source>
        <translation>%1&#xa0;h %2&#xa0;min</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::IdleGpuPanel</name>
    <message>
        <source>Preempt job</source>
        <translation>Job verdrängen</translation>
    </message>
    <message>
        <source>Send the selected GPUs&apos; jobs back to the queue; work since their last checkpoint is lost</source>
        <translation>Die Jobs der ausgewählten GPUs zurück in die Warteschlange schicken; die Arbeit seit ihrem letzten Checkpoint geht verloren</translation>
    </message>
    <message>
        <source>Cancel job</source>
        <translation>Job abbrechen</translation>
    </message>
    <message>
        <source>End the selected GPUs&apos; jobs</source>
        <translation>Die Jobs der ausgewählten GPUs beenden</translation>
    </message>
    <message>
        <source> %</source>
        <translation> %</translation>
    </message>
    <message>
        <source>An allocated GPU counts as idle while its utilization is below this</source>
        <translation>Eine belegte GPU gilt als ungenutzt, solange ihre Auslastung darunter liegt</translation>
    </message>
    <message>
        <source> min</source>
        <translation> min</translation>
    </message>
    <message>
        <source>List a GPU once it has been idle this long (engine time)</source>
        <translation>Eine GPU aufführen, sobald sie so lange ungenutzt war (Engine-Zeit)</translation>
    </message>
    <message>
        <source>Idle below</source>
        <translation>Ungenutzt unter</translation>
    </message>
    <message>
        <source>for at least</source>
        <translation>für mindestens</translation>
    </message>
    <message>
        <source>Preempt this job holding idle GPUs?</source>
        <translation>Diesen Job mit ungenutzten GPUs verdrängen?</translation>
    </message>
    <message>
        <source>Cancel this job holding idle GPUs?</source>
        <translation>Diesen Job mit ungenutzten GPUs abbrechen?</translation>
    </message>
    <message>
        <source>Preempt these %1 jobs holding idle GPUs?</source>
        <translation>Diese %1 Jobs mit ungenutzten GPUs verdrängen?</translation>
    </message>
    <message>
        <source>Cancel these %1 jobs holding idle GPUs?</source>
        <translation>Diese %1 Jobs mit ungenutzten GPUs abbrechen?</translation>
    </message>
    <message>
        <source>no team</source>
        <translation>kein Team</translation>
    </message>
    <message>
        <source>Job %1 of team %2: %3 GPU-hours idle on 1 GPU</source>
        <translation>Job %1 von Team %2: %3 GPU-Stunden ungenutzt auf 1 GPU</translation>
    </message>
    <message>
        <source>Job %1 of team %2: %3 GPU-hours idle on %4 GPUs</source>
        <translation>Job %1 von Team %2: %3 GPU-Stunden ungenutzt auf %4 GPUs</translation>
    </message>
    <message>
        <source>Preempted jobs go back to the queue and lose the work done since their last checkpoint.</source>
        <translation>Verdrängte Jobs kehren in die Warteschlange zurück und verlieren die Arbeit seit ihrem letzten Checkpoint.</translation>
    </message>
    <message>
        <source>Cancelled jobs end and do not come back.</source>
        <translation>Abgebrochene Jobs enden und kommen nicht zurück.</translation>
    </message>
    <message>
        <source>Preempt idle jobs</source>
        <translation>Ungenutzte Jobs verdrängen</translation>
    </message>
    <message>
        <source>Cancel idle jobs</source>
        <translation>Ungenutzte Jobs abbrechen</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::JobGroupProxy</name>
    <message>
        <source>(no team)</source>
        <translation>(kein Team)</translation>
    </message>
    <message>
        <source>1 job</source>
        <translation>1 Job</translation>
    </message>
    <message>
        <source>%1 jobs</source>
        <translation>%1 Jobs</translation>
    </message>
    <message>
        <source>%1 — %2 · %3 GPUs requested</source>
        <translation>%1 — %2 · %3 GPUs angefordert</translation>
    </message>
    <message>
        <source>%1 — %2 · %3 GPUs requested · %4 held</source>
        <translation>%1 — %2 · %3 GPUs angefordert · %4 belegt</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::JobInspector</name>
    <message>
        <source>Hold</source>
        <translation>Zurückhalten</translation>
    </message>
    <message>
        <source>Release</source>
        <translation>Freigeben</translation>
    </message>
    <message>
        <source>Preempt</source>
        <translation>Verdrängen</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Priority class to set</source>
        <translation>Zu setzende Prioritätsklasse</translation>
    </message>
    <message>
        <source>Set priority</source>
        <translation>Priorität setzen</translation>
    </message>
    <message>
        <source>No job selected</source>
        <translation>Kein Job ausgewählt</translation>
    </message>
    <message>
        <source>Placed on %1</source>
        <translation>Platziert auf %1</translation>
    </message>
    <message>
        <source>Job %1 — %2</source>
        <translation>Job %1 — %2</translation>
    </message>
    <message>
        <source>%1 of %2 nodes fit</source>
        <translation>%1 von %2 Knoten passen</translation>
    </message>
    <message>
        <source>Queue position %1 of %2</source>
        <translation>Position %1 von %2 in der Warteschlange</translation>
    </message>
    <message>
        <source>ETA at %1 s</source>
        <translation>Start voraussichtlich bei %1 s</translation>
    </message>
    <message>
        <source>ETA now</source>
        <translation>Start voraussichtlich jetzt</translation>
    </message>
    <message>
        <source>ETA in %1</source>
        <translation>Start voraussichtlich in %1</translation>
    </message>
    <message>
        <source>no ETA</source>
        <translation>Start nicht absehbar</translation>
    </message>
    <message>
        <source>Waiting for jobs %1</source>
        <translation>Wartet auf Jobs %1</translation>
    </message>
    <message>
        <source>Teams in the way: %1</source>
        <translation>Blockierende Teams: %1</translation>
    </message>
    <message>
        <source>Quota</source>
        <translation>Kontingent</translation>
    </message>
    <message>
        <source>Repartition</source>
        <translation>Neupartitionierung</translation>
    </message>
    <message>
        <source>Jobs end</source>
        <translation>Jobs enden</translation>
    </message>
    <message>
        <source>Relax topology</source>
        <translation>Topologie lockern</translation>
    </message>
    <message>
        <source>Preemption</source>
        <translation>Verdrängung</translation>
    </message>
    <message>
        <source>What would help:</source>
        <translation>Was helfen würde:</translation>
    </message>
    <message>
        <source>Slurm job %1: %2</source>
        <translation>Slurm-Job %1: %2</translation>
    </message>
    <message>
        <source>MPS limits per task: %1</source>
        <translation>MPS-Limits je Task: %1</translation>
    </message>
    <message>
        <source>Slurm differs from Tessera&apos;s state (%1)</source>
        <translation>Slurm weicht vom Zustand in Tessera ab (%1)</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::JobQueueView</name>
    <message>
        <source>Group by team</source>
        <translation>Nach Team gruppieren</translation>
    </message>
    <message>
        <source>Show the jobs under one row per team, with its GPUs</source>
        <translation>Die Jobs unter je einer Zeile pro Team mit dessen GPUs zeigen</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::JobTableModel</name>
    <message>
        <source>training</source>
        <translation>Training</translation>
    </message>
    <message>
        <source>inference</source>
        <translation>Inferenz</translation>
    </message>
    <message>
        <source>interactive</source>
        <translation>interaktiv</translation>
    </message>
    <message>
        <source>batch</source>
        <translation>Batch</translation>
    </message>
    <message>
        <source>%1s</source>
        <translation>%1&#xa0;s</translation>
    </message>
    <message>
        <source>%1m</source>
        <translation>%1&#xa0;min</translation>
    </message>
    <message>
        <source>%1h %2m</source>
        <translation>%1&#xa0;h %2&#xa0;min</translation>
    </message>
    <message>
        <source>%1d %2h</source>
        <translation>%1&#xa0;d %2&#xa0;h</translation>
    </message>
    <message>
        <source>no GPU</source>
        <translation>keine GPU</translation>
    </message>
    <message>
        <source>%1 GPU</source>
        <translation>%1 GPU</translation>
    </message>
    <message>
        <source>%1x %2</source>
        <translation>%1× %2</translation>
    </message>
    <message>
        <source>now</source>
        <translation>jetzt</translation>
    </message>
    <message>
        <source>in %1</source>
        <translation>in %1</translation>
    </message>
    <message>
        <source>Blocked by: %1</source>
        <translation>Blockiert durch: %1</translation>
    </message>
    <message>
        <source>Job</source>
        <translation>Job</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Team</source>
        <translation>Team</translation>
    </message>
    <message>
        <source>Priority</source>
        <translation>Priorität</translation>
    </message>
    <message>
        <source>Workload</source>
        <translation>Arbeitslast</translation>
    </message>
    <message>
        <source>Tasks</source>
        <translation>Tasks</translation>
    </message>
    <message>
        <source>Request</source>
        <translation>Anforderung</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Wait</source>
        <translation>Wartezeit</translation>
    </message>
    <message>
        <source>Queue</source>
        <translation>Warteschlange</translation>
    </message>
    <message>
        <source>ETA</source>
        <translation>Vorauss. Start</translation>
    </message>
    <message>
        <source>Reason / placement</source>
        <translation>Grund / Platzierung</translation>
    </message>
    <message>
        <source>Slurm job</source>
        <translation>Slurm-Job</translation>
    </message>
    <message>
        <source>Slurm %1</source>
        <translation>Slurm %1</translation>
    </message>
    <message>
        <source>MPS %1%</source>
        <translation>MPS %1%</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::MigEditor</name>
    <message>
        <source>%1 is busy (pinned)</source>
        <translation>%1 ist belegt (fixiert)</translation>
    </message>
    <message>
        <source>Remove %1</source>
        <translation>%1 entfernen</translation>
    </message>
    <message>
        <source>Drag a profile onto a slice position; double-click to add it where it leaves the least fragmentation</source>
        <translation>Ein Profil auf eine Slice-Position ziehen; Doppelklick fügt es dort ein, wo es die geringste Fragmentierung hinterlässt</translation>
    </message>
    <message>
        <source>Dry-run result</source>
        <translation>Ergebnis des Probelaufs</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>Zurücksetzen</translation>
    </message>
    <message>
        <source>Dry run</source>
        <translation>Probelauf</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>Anwenden</translation>
    </message>
    <message>
        <source>%1 (%2) is not a MIG-capable GPU model</source>
        <translation>%1 (%2) ist kein MIG-fähiges GPU-Modell</translation>
    </message>
    <message>
        <source>%1 is not in MIG mode</source>
        <translation>%1 ist nicht im MIG-Modus</translation>
    </message>
    <message>
        <source>the layout of %1 cannot be read: %2</source>
        <translation>das Layout von %1 kann nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>no MIG GPU loaded</source>
        <translation>keine MIG-GPU geladen</translation>
    </message>
    <message>
        <source>%1: %2 memory slice(s), %3 compute slice(s), starts {%4}, at most %5 per GPU</source>
        <translation>%1: %2 Speicher-Slice(s), %3 Rechen-Slice(s), Startpositionen {%4}, höchstens %5 pro GPU</translation>
    </message>
    <message>
        <source>drop %1 on a memory slice position (0-%2)</source>
        <translation>%1 auf einer Speicher-Slice-Position ablegen (0-%2)</translation>
    </message>
    <message>
        <source>%1 fits nowhere next to the instances of %2</source>
        <translation>%1 passt nirgends neben die Instanzen von %2</translation>
    </message>
    <message>
        <source>no instance at memory slice %1</source>
        <translation>keine Instanz an Speicher-Slice %1</translation>
    </message>
    <message>
        <source>move it onto a memory slice position (0-%1)</source>
        <translation>auf eine Speicher-Slice-Position verschieben (0-%1)</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>ungenutzt</translation>
    </message>
    <message>
        <source>job %1</source>
        <translation>Job %1</translation>
    </message>
    <message>
        <source>busy</source>
        <translation>belegt</translation>
    </message>
    <message>
        <source>%1 is busy (job %2) and pinned: drain it before repartitioning</source>
        <translation>%1 ist belegt (Job %2) und fixiert: vor dem Neupartitionieren leeren</translation>
    </message>
    <message>
        <source>%1 is busy and pinned: drain it before repartitioning</source>
        <translation>%1 ist belegt und fixiert: vor dem Neupartitionieren leeren</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>No MIG GPU selected</source>
        <translation>Keine MIG-GPU ausgewählt</translation>
    </message>
    <message>
        <source>Layout: %1</source>
        <translation>Layout: %1</translation>
    </message>
    <message>
        <source>empty</source>
        <translation>leer</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::MigFleetSummary</name>
    <message>
        <source>%1 on %2 MIG GPU(s) of model %3</source>
        <translation>%1 auf %2 MIG-GPU(s) des Modells %3</translation>
    </message>
    <message>
        <source>GPU model</source>
        <translation>GPU-Modell</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>Profil</translation>
    </message>
    <message>
        <source>Idle</source>
        <translation>Ungenutzt</translation>
    </message>
    <message>
        <source>Can add now</source>
        <translation>Jetzt hinzufügbar</translation>
    </message>
    <message>
        <source>Available now</source>
        <translation>Jetzt verfügbar</translation>
    </message>
    <message>
        <source>After repartition</source>
        <translation>Nach Neupartitionierung</translation>
    </message>
    <message>
        <source>Existing instances of the profile without work</source>
        <translation>Vorhandene Instanzen des Profils ohne Arbeit</translation>
    </message>
    <message>
        <source>New instances of the profile that can still be created, summed over GPUs, without touching any existing instance</source>
        <translation>Neue Instanzen des Profils, die noch angelegt werden können, summiert über alle GPUs, ohne eine bestehende Instanz anzutasten</translation>
    </message>
    <message>
        <source>Idle plus can add now: jobs of this profile that could start now</source>
        <translation>Ungenutzt plus jetzt hinzufügbar: Jobs dieses Profils, die jetzt starten könnten</translation>
    </message>
    <message>
        <source>The same count once every GPU is repartitioned as suggested for the demand (busy instances kept)</source>
        <translation>Dieselbe Anzahl, nachdem jede GPU wie für den Bedarf vorgeschlagen neu partitioniert wurde (belegte Instanzen bleiben erhalten)</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::MigMapWidget</name>
    <message>
        <source>%1: layout unreadable: %2</source>
        <translation>%1: Layout nicht lesbar: %2</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>%1 on %2, %3</source>
        <translation>%1 auf %2, %3</translation>
    </message>
    <message>
        <source>busy: job %1</source>
        <translation>belegt: Job %1</translation>
    </message>
    <message>
        <source>(team %1)</source>
        <translation>(Team %1)</translation>
    </message>
    <message>
        <source>busy</source>
        <translation>belegt</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>ungenutzt</translation>
    </message>
    <message>
        <source>%1 slice %2: free but stranded: no profile in demand can be placed over it</source>
        <translation>%1 Slice %2: frei, aber verwaist: kein nachgefragtes Profil lässt sich darauf platzieren</translation>
    </message>
    <message>
        <source>%1 slice %2: free</source>
        <translation>%1 Slice %2: frei</translation>
    </message>
    <message>
        <source>unreadable</source>
        <translation>nicht lesbar</translation>
    </message>
    <message>
        <source>%1 stranded</source>
        <translation>%1 verwaist</translation>
    </message>
    <message>
        <source>job %1</source>
        <translation>Job %1</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::NodeAdmissionModel</name>
    <message>
        <source>awaiting admission</source>
        <translation>wartet auf Aufnahme</translation>
    </message>
    <message>
        <source>admitted, joins at its next report</source>
        <translation>aufgenommen, kommt mit seinem nächsten Bericht hinzu</translation>
    </message>
    <message>
        <source>in the cluster model</source>
        <translation>im Clustermodell</translation>
    </message>
    <message>
        <source>Admit it (admin token): %1</source>
        <translation>Aufnehmen (Admin-Token): %1</translation>
    </message>
    <message>
        <source>Warnings:</source>
        <translation>Warnungen:</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>Host</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPUs</translation>
    </message>
    <message>
        <source>Warnings</source>
        <translation>Warnungen</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::NodeAdmissionPanel</name>
    <message>
        <source>No node awaits admission.</source>
        <translation>Kein Knoten wartet auf Aufnahme.</translation>
    </message>
    <message>
        <source>1 node awaits admission.</source>
        <translation>1 Knoten wartet auf Aufnahme.</translation>
    </message>
    <message>
        <source>%1 nodes await admission.</source>
        <translation>%1 Knoten warten auf Aufnahme.</translation>
    </message>
    <message>
        <source>Admit one with “tessera ctl node admit NODE” (an admin&apos;s token).</source>
        <translation>Aufnehmen mit „tessera ctl node admit NODE“ (Token eines Admins).</translation>
    </message>
    <message>
        <source>The nodes&apos; own reports have warnings (hover a row).</source>
        <translation>Die Berichte der Knoten enthalten Warnungen (Zeile überfahren).</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::NodeHolds</name>
    <message>
        <source>operator</source>
        <translation>Operator</translation>
    </message>
    <message>
        <source>node failure</source>
        <translation>Knotenausfall</translation>
    </message>
    <message>
        <source>GPU fault</source>
        <translation>GPU-Fehler</translation>
    </message>
    <message>
        <source>MIG reconfiguration</source>
        <translation>MIG-Umkonfiguration</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>down</source>
        <translation>ausgefallen</translation>
    </message>
    <message>
        <source>draining</source>
        <translation>wird geleert</translation>
    </message>
    <message>
        <source>node inventory</source>
        <translation>Knoteninventar</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::OverviewModel</name>
    <message>
        <source>%1 GPUs</source>
        <translation>%1 GPUs</translation>
    </message>
    <message>
        <source>%1 GPUs (%2 %)</source>
        <translation>%1 GPUs (%2 %)</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPUs</translation>
    </message>
    <message>
        <source>Allocated</source>
        <translation>Zugewiesen</translation>
    </message>
    <message>
        <source>Busy</source>
        <translation>Ausgelastet</translation>
    </message>
    <message>
        <source>no telemetry</source>
        <translation>keine Telemetrie</translation>
    </message>
    <message>
        <source>SM-active</source>
        <translation>SM-aktiv</translation>
    </message>
    <message>
        <source>Allocated but idle (gap)</source>
        <translation>Zugewiesen, aber untätig (Lücke)</translation>
    </message>
    <message>
        <source>Free on nodes down or draining</source>
        <translation>Frei auf ausgefallenen oder geleerten Knoten</translation>
    </message>
    <message>
        <source>Free on faulted GPUs</source>
        <translation>Frei auf fehlerhaften GPUs</translation>
    </message>
    <message>
        <source>Fragmented (free, no pending request fits)</source>
        <translation>Fragmentiert (frei, keine wartende Anforderung passt)</translation>
    </message>
    <message>
        <source>Job %1 (%2)</source>
        <translation>Job %1 (%2)</translation>
    </message>
    <message>
        <source>GPU faults</source>
        <translation>GPU-Fehler</translation>
    </message>
    <message>
        <source>Nodes down</source>
        <translation>Knoten ausgefallen</translation>
    </message>
    <message>
        <source>Nodes draining or drained</source>
        <translation>Knoten werden geleert oder sind geleert</translation>
    </message>
    <message>
        <source>Executor</source>
        <translation>Ausführung</translation>
    </message>
    <message>
        <source>none (the engine&apos;s own simulation)</source>
        <translation>keine (Simulation der Engine)</translation>
    </message>
    <message>
        <source>%1 ago</source>
        <translation>vor %1</translation>
    </message>
    <message>
        <source>never</source>
        <translation>nie</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Last sync</source>
        <translation>Letzter Abgleich</translation>
    </message>
    <message>
        <source>Capacity</source>
        <translation>Kapazität</translation>
    </message>
    <message>
        <source>Pending jobs by reason</source>
        <translation>Wartende Jobs nach Grund</translation>
    </message>
    <message>
        <source>Free GPUs no job can use</source>
        <translation>Freie GPUs, die kein Job nutzen kann</translation>
    </message>
    <message>
        <source>Largest idle allocations</source>
        <translation>Größte untätige Zuweisungen</translation>
    </message>
    <message>
        <source>Faults and nodes out</source>
        <translation>Fehler und ausgefallene Knoten</translation>
    </message>
    <message>
        <source>What</source>
        <translation>Was</translation>
    </message>
    <message>
        <source>Now</source>
        <translation>Jetzt</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::ReportExportDialog</name>
    <message>
        <source> h</source>
        <translation> h</translation>
    </message>
    <message>
        <source>Export report</source>
        <translation>Bericht exportieren</translation>
    </message>
    <message>
        <source>Range</source>
        <translation>Zeitraum</translation>
    </message>
    <message>
        <source>UTC, an IANA name such as Europe/Berlin, or an offset such as +02:00</source>
        <translation>UTC, ein IANA-Name wie Europe/Berlin oder ein Versatz wie +02:00</translation>
    </message>
    <message>
        <source>Time zone</source>
        <translation>Zeitzone</translation>
    </message>
    <message>
        <source>Team</source>
        <translation>Team</translation>
    </message>
    <message>
        <source>Department</source>
        <translation>Abteilung</translation>
    </message>
    <message>
        <source>Queue</source>
        <translation>Warteschlange</translation>
    </message>
    <message>
        <source>Pool</source>
        <translation>Pool</translation>
    </message>
    <message>
        <source>GPU model</source>
        <translation>GPU-Modell</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Job</source>
        <translation>Job</translation>
    </message>
    <message>
        <source>Group by</source>
        <translation>Gruppieren nach</translation>
    </message>
    <message>
        <source>all teams (or a comma-separated list)</source>
        <translation>alle Teams (oder eine kommagetrennte Liste)</translation>
    </message>
    <message>
        <source>Teams</source>
        <translation>Teams</translation>
    </message>
    <message>
        <source> %</source>
        <translation> %</translation>
    </message>
    <message>
        <source>A GPU below this utilization counts as idle</source>
        <translation>Eine GPU unter dieser Auslastung gilt als untätig</translation>
    </message>
    <message>
        <source>Idle below</source>
        <translation>Untätig unter</translation>
    </message>
    <message>
        <source> min</source>
        <translation> min</translation>
    </message>
    <message>
        <source>Shorter idle stretches are not counted as idle</source>
        <translation>Kürzere untätige Abschnitte zählen nicht als untätig</translation>
    </message>
    <message>
        <source>Idle for at least</source>
        <translation>Untätig für mindestens</translation>
    </message>
    <message>
        <source>Price table</source>
        <translation>Preistabelle</translation>
    </message>
    <message>
        <source>PDF document</source>
        <translation>PDF-Dokument</translation>
    </message>
    <message>
        <source>HTML page</source>
        <translation>HTML-Seite</translation>
    </message>
    <message>
        <source>CSV files (a directory)</source>
        <translation>CSV-Dateien (ein Verzeichnis)</translation>
    </message>
    <message>
        <source>JSON</source>
        <translation>JSON</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>Format</translation>
    </message>
    <message>
        <source>Save to</source>
        <translation>Speichern unter</translation>
    </message>
    <message>
        <source>Preview computes the report and shows it here.</source>
        <translation>Vorschau berechnet den Bericht und zeigt ihn hier an.</translation>
    </message>
    <message>
        <source>Last 24 hours</source>
        <translation>Letzte 24 Stunden</translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation>Letzte 7 Tage</translation>
    </message>
    <message>
        <source>Last 30 days</source>
        <translation>Letzte 30 Tage</translation>
    </message>
    <message>
        <source>Whole history</source>
        <translation>Gesamter Verlauf</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>Benutzerdefiniert</translation>
    </message>
    <message>
        <source>from</source>
        <translation>von</translation>
    </message>
    <message>
        <source>to</source>
        <translation>bis</translation>
    </message>
    <message>
        <source>none: no cost figures</source>
        <translation>keine: keine Kostenangaben</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Durchsuchen…</translation>
    </message>
    <message>
        <source>Preview</source>
        <translation>Vorschau</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>Exportieren</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Stop computing the report</source>
        <translation>Die Berechnung des Berichts abbrechen</translation>
    </message>
    <message>
        <source>Simulated time has no time zone</source>
        <translation>Simulierte Zeit hat keine Zeitzone</translation>
    </message>
    <message>
        <source>Known teams: %1</source>
        <translation>Bekannte Teams: %1</translation>
    </message>
    <message>
        <source>Everything the session has recorded.</source>
        <translation>Alles, was die Sitzung aufgezeichnet hat.</translation>
    </message>
    <message>
        <source>%1 – %2</source>
        <translation>%1 – %2</translation>
    </message>
    <message>
        <source>%1 (simulated time)</source>
        <translation>%1 (simulierte Zeit)</translation>
    </message>
    <message>
        <source>The range ends before it starts: give a “to” later than “from”.</source>
        <translation>Der Zeitraum endet, bevor er beginnt: „bis“ muss nach „von“ liegen.</translation>
    </message>
    <message>
        <source>Price table: %1</source>
        <translation>Preistabelle: %1</translation>
    </message>
    <message>
        <source>Price tables (*.yaml *.yml);;All files (*)</source>
        <translation>Preistabellen (*.yaml *.yml);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Directory for the CSV files</source>
        <translation>Verzeichnis für die CSV-Dateien</translation>
    </message>
    <message>
        <source>PDF documents (*.pdf)</source>
        <translation>PDF-Dokumente (*.pdf)</translation>
    </message>
    <message>
        <source>HTML pages (*.html *.htm)</source>
        <translation>HTML-Seiten (*.html *.htm)</translation>
    </message>
    <message>
        <source>JSON files (*.json)</source>
        <translation>JSON-Dateien (*.json)</translation>
    </message>
    <message>
        <source>Choose where to save the report.</source>
        <translation>Wählen Sie, wo der Bericht gespeichert werden soll.</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>Abgebrochen.</translation>
    </message>
    <message>
        <source>No session to compute the report from.</source>
        <translation>Keine Sitzung, aus der der Bericht berechnet werden kann.</translation>
    </message>
    <message>
        <source>Computing the report…</source>
        <translation>Bericht wird berechnet…</translation>
    </message>
    <message>
        <source>Cannot write the report: %1</source>
        <translation>Der Bericht kann nicht geschrieben werden: %1</translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation>%1 geschrieben</translation>
    </message>
    <message>
        <source>Preview ready; Export writes this report.</source>
        <translation>Vorschau fertig; Exportieren schreibt diesen Bericht.</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::SharingStudyDialog</name>
    <message>
        <source>Run</source>
        <translation>Ausführen</translation>
    </message>
    <message>
        <source>Sharing study</source>
        <translation>GPU-Teilungsstudie</translation>
    </message>
    <message>
        <source>Synthetic jobs</source>
        <translation>Synthetische Jobs</translation>
    </message>
    <message>
        <source>Arrivals per hour</source>
        <translation>Ankünfte pro Stunde</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>Startwert</translation>
    </message>
    <message>
        <source>Running the study…</source>
        <translation>Die Studie läuft …</translation>
    </message>
    <message>
        <source>The study failed: %1</source>
        <translation>Die Studie ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>GPUs needed</source>
        <translation>Benötigte GPUs</translation>
    </message>
    <message>
        <source>Stranded GPUs</source>
        <translation>Ungenutzt blockierte GPUs</translation>
    </message>
    <message>
        <source>Co-located jobs</source>
        <translation>Zusammengelegte Jobs</translation>
    </message>
    <message>
        <source>Synthetic</source>
        <translation>Synthetisch</translation>
    </message>
    <message>
        <source>Trace file</source>
        <translation>Trace-Datei</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Durchsuchen…</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>Anhalten</translation>
    </message>
    <message>
        <source>A trace: openb, Helios, Philly, SWF or a Tessera job list</source>
        <translation>Ein Trace: openb, Helios, Philly, SWF oder eine Tessera-Jobliste</translation>
    </message>
    <message>
        <source>Detect from the file</source>
        <translation>Aus der Datei erkennen</translation>
    </message>
    <message>
        <source>p95 queue wait per workload class, like inference=5m, or 10m for every class; several separated by spaces</source>
        <translation>p95-Wartezeit in der Warteschlange je Arbeitslastklasse, etwa inference=5m, oder 10m für jede Klasse; mehrere durch Leerzeichen getrennt</translation>
    </message>
    <message>
        <source>Workload</source>
        <translation>Arbeitslast</translation>
    </message>
    <message>
        <source>Trace</source>
        <translation>Trace</translation>
    </message>
    <message>
        <source>Wait targets (p95)</source>
        <translation>Wartezeitziele (p95)</translation>
    </message>
    <message>
        <source>Slots per time-sliced GPU</source>
        <translation>Slots pro zeitgeteilter GPU</translation>
    </message>
    <message>
        <source>Stopping the study…</source>
        <translation>Die Studie wird angehalten …</translation>
    </message>
    <message>
        <source>Choose a trace file.</source>
        <translation>Wählen Sie eine Trace-Datei.</translation>
    </message>
    <message>
        <source>The trace could not be read.</source>
        <translation>Der Trace konnte nicht gelesen werden.</translation>
    </message>
    <message>
        <source>The study was stopped.</source>
        <translation>Die Studie wurde angehalten.</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <comment>one sentence of the recommendation after another</comment>
        <translation>%1 %2</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::SharingStudyModel</name>
    <message>
        <source>skipped</source>
        <translation>übersprungen</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>Modus</translation>
    </message>
    <message>
        <source>Shared GPUs</source>
        <translation>Geteilte GPUs</translation>
    </message>
    <message>
        <source>GPUs needed</source>
        <translation>Benötigte GPUs</translation>
    </message>
    <message>
        <source>Allocated %</source>
        <translation>Zugeteilt %</translation>
    </message>
    <message>
        <source>Busy %</source>
        <translation>Ausgelastet %</translation>
    </message>
    <message>
        <source>Stranded GPUs</source>
        <translation>Ungenutzt blockierte GPUs</translation>
    </message>
    <message>
        <source>GPU-h beyond need</source>
        <translation>GPU-h über Bedarf</translation>
    </message>
    <message>
        <source>Co-located jobs</source>
        <translation>Zusammengelegte Jobs</translation>
    </message>
    <message>
        <source>Wait p95 %1 (min)</source>
        <translation>Wartezeit p95 %1 (min)</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::UtilizationChart</name>
    <message>
        <source>GPUs</source>
        <translation>GPUs</translation>
    </message>
    <message>
        <source>Allocated but idle</source>
        <translation>Belegt, aber ungenutzt</translation>
    </message>
    <message>
        <source>Allocated</source>
        <translation>Belegt</translation>
    </message>
    <message>
        <source>Busy</source>
        <translation>Ausgelastet</translation>
    </message>
    <message>
        <source>Effective (SM active)</source>
        <translation>Effektiv (SM aktiv)</translation>
    </message>
    <message>
        <source>GPUs allocated by team</source>
        <translation>Belegte GPUs nach Team</translation>
    </message>
    <message>
        <source>No utilization telemetry for this range: only allocation is shown.</source>
        <translation>Keine Auslastungstelemetrie für diesen Zeitraum: Nur die Belegung wird angezeigt.</translation>
    </message>
    <message>
        <source>No busy-GPU telemetry for this range: the busy line and the idle gap are hidden.</source>
        <translation>Keine Telemetrie zu ausgelasteten GPUs für diesen Zeitraum: Die Linie „Ausgelastet“ und die Fläche „Belegt, aber ungenutzt“ werden ausgeblendet.</translation>
    </message>
    <message>
        <source>No SM-activity telemetry for this range: the effective line is hidden.</source>
        <translation>Keine SM-Aktivitätstelemetrie für diesen Zeitraum: Die Linie „Effektiv“ wird ausgeblendet.</translation>
    </message>
    <message>
        <source>Whose utilization the upper chart shows: the cluster, one pool, or one team with its sub-teams</source>
        <translation>Wessen Auslastung das obere Diagramm zeigt: der Cluster, ein Pool oder ein Team mit seinen Unterteams</translation>
    </message>
    <message>
        <source>&amp;Scope:</source>
        <translation>&amp;Bereich:</translation>
    </message>
    <message>
        <source>Pool: %1</source>
        <translation>Pool: %1</translation>
    </message>
    <message>
        <source>Team: %1</source>
        <translation>Team: %1</translation>
    </message>
    <message>
        <source>Cluster</source>
        <translation>Cluster</translation>
    </message>
    <message>
        <source>Loading %1…</source>
        <translation>%1 wird geladen…</translation>
    </message>
    <message>
        <source>%1: GPUs allocated, busy, effective and tensor active</source>
        <translation>%1: GPUs belegt, ausgelastet, effektiv und Tensor aktiv</translation>
    </message>
    <message>
        <source>Tensor active</source>
        <translation>Tensor aktiv</translation>
    </message>
    <message>
        <source>No data for %1 in this range: its series are not recorded (a database from before per-pool and per-team series, or nothing recorded yet).</source>
        <translation>Keine Daten für %1 in diesem Zeitraum: Seine Reihen werden nicht aufgezeichnet (eine Datenbank aus der Zeit vor Reihen pro Pool und Team, oder noch nichts aufgezeichnet).</translation>
    </message>
    <message>
        <source>No tensor-activity telemetry for this range: the tensor line is hidden.</source>
        <translation>Keine Tensor-Aktivitätstelemetrie für diesen Zeitraum: Die Tensor-Linie wird ausgeblendet.</translation>
    </message>
    <message>
        <source>Utilization</source>
        <translation>Auslastung</translation>
    </message>
    <message>
        <source>By team</source>
        <translation>Nach Team</translation>
    </message>
</context>
</TS>
