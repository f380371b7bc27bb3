<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>tessera::console::MainWindow</name>
    <message>
        <source>Tessera — %1</source>
        <translation>Tessera — %1</translation>
    </message>
    <message>
        <source>Cluster summary</source>
        <translation>Cluster-Übersicht</translation>
    </message>
    <message>
        <source>GPU links of the selected node</source>
        <translation>GPU-Verbindungen des gewählten Knotens</translation>
    </message>
    <message>
        <source>%1 nodes, %2 GPUs, %3 MIG instances</source>
        <translation>%1 Knoten, %2 GPUs, %3 MIG-Instanzen</translation>
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
</context>
</TS>
