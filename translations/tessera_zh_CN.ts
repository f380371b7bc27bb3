<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>Top</name>
    <message>
        <source>unknown view: %1</source>
        <translation>未知视图：%1</translation>
    </message>
    <message>
        <source>Priority class:</source>
        <translation>优先级类别：</translation>
    </message>
    <message>
        <source>Pin to node:</source>
        <translation>绑定到节点：</translation>
    </message>
    <message>
        <source>Drain reason:</source>
        <translation>排空原因：</translation>
    </message>
    <message>
        <source>read-only: actions are off</source>
        <translation>只读：操作已关闭</translation>
    </message>
    <message>
        <source>refused: %1</source>
        <translation>被拒绝：%1</translation>
    </message>
    <message>
        <source>done: %1</source>
        <translation>已完成：%1</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Queue position</source>
        <translation>队列位置</translation>
    </message>
    <message>
        <source>ETA</source>
        <translation>预计开始</translation>
    </message>
    <message>
        <source>in %1</source>
        <translation>%1 后</translation>
    </message>
    <message>
        <source>Fragmentation</source>
        <translation>碎片</translation>
    </message>
    <message>
        <source>Blocked by jobs</source>
        <translation>被作业阻塞</translation>
    </message>
    <message>
        <source>Blocked by teams</source>
        <translation>被团队阻塞</translation>
    </message>
    <message>
        <source>What would help:</source>
        <translation>可行的办法：</translation>
    </message>
    <message>
        <source>Placement</source>
        <translation>放置</translation>
    </message>
    <message>
        <source>History:</source>
        <translation>历史：</translation>
    </message>
    <message>
        <source>team %1, class %2, %3, asks %4</source>
        <translation>团队 %1，类别 %2，%3，请求 %4</translation>
    </message>
    <message>
        <source>held by an operator</source>
        <translation>被操作员挂起</translation>
    </message>
    <message>
        <source>Running on</source>
        <translation>运行于</translation>
    </message>
    <message>
        <source>MPS limits</source>
        <translation>MPS 限制</translation>
    </message>
    <message>
        <source>Job %1 is no longer active</source>
        <translation>作业 %1 已不再活动</translation>
    </message>
    <message>
        <source>No node %1</source>
        <translation>没有节点 %1</translation>
    </message>
    <message>
        <source>Holds:</source>
        <translation>占用：</translation>
    </message>
    <message>
        <source>down</source>
        <translation>宕机</translation>
    </message>
    <message>
        <source>Running jobs:</source>
        <translation>运行中的作业：</translation>
    </message>
    <message>
        <source>switch view</source>
        <translation>切换视图</translation>
    </message>
    <message>
        <source>filter: words, key=value (team=, state=, node=, name=, ...)</source>
        <translation>过滤：词语，键=值（team=、state=、node=、name=……）</translation>
    </message>
    <message>
        <source>drill down: job or node detail</source>
        <translation>深入：作业或节点详情</translation>
    </message>
    <message>
        <source>back, or clear the filter</source>
        <translation>返回，或清除过滤</translation>
    </message>
    <message>
        <source>move the selection</source>
        <translation>移动选择</translation>
    </message>
    <message>
        <source>sort by the next column / reverse</source>
        <translation>按下一列排序 / 反向</translation>
    </message>
    <message>
        <source>group jobs by team</source>
        <translation>按团队分组作业</translation>
    </message>
    <message>
        <source>next heatmap layer</source>
        <translation>下一个热图层</translation>
    </message>
    <message>
        <source>quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>hold / release the job</source>
        <translation>挂起 / 释放作业</translation>
    </message>
    <message>
        <source>preempt / cancel the job</source>
        <translation>抢占 / 取消作业</translation>
    </message>
    <message>
        <source>set the priority class</source>
        <translation>设置优先级类别</translation>
    </message>
    <message>
        <source>move to the top / bottom of the queue</source>
        <translation>移到队列顶部 / 底部</translation>
    </message>
    <message>
        <source>pin the job to a node</source>
        <translation>将作业绑定到节点</translation>
    </message>
    <message>
        <source>drain (with a reason) / undrain the node</source>
        <translation>排空节点（附原因）/ 取消排空</translation>
    </message>
    <message>
        <source>Jobs</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>Pending</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>GPU heatmap</source>
        <translation>GPU 热图</translation>
    </message>
    <message>
        <source>MIG</source>
        <translation>MIG</translation>
    </message>
    <message>
        <source>Events</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>Teams</source>
        <translation>团队</translation>
    </message>
    <message>
        <source>Job</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <source>GPUs %1/%2</source>
        <translation>GPU %1/%2</translation>
    </message>
    <message>
        <source>run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <source>pend %1</source>
        <translation>等待 %1</translation>
    </message>
    <message>
        <source>sort</source>
        <translation>排序</translation>
    </message>
    <message>
        <source>by team</source>
        <translation>按团队</translation>
    </message>
    <message>
        <source>read-only</source>
        <translation>只读</translation>
    </message>
    <message>
        <source>:view /filter ?keys Esc back q quit</source>
        <translation>:视图 /过滤 ?按键 Esc 返回 q 退出</translation>
    </message>
    <message>
        <source>Enter detail s sort g group</source>
        <translation>Enter 详情 s 排序 g 分组</translation>
    </message>
    <message>
        <source>h hold r release p preempt x cancel</source>
        <translation>h 挂起 r 释放 p 抢占 x 取消</translation>
    </message>
    <message>
        <source>d drain u undrain</source>
        <translation>d 排空 u 取消排空</translation>
    </message>
    <message>
        <source>starts: %1</source>
        <translation>启动：%1</translation>
    </message>
    <message>
        <source>preempted: %1</source>
        <translation>被抢占：%1</translation>
    </message>
    <message>
        <source>stopped: %1</source>
        <translation>停止：%1</translation>
    </message>
    <message>
        <source>GPU-hours lost: %1</source>
        <translation>损失的 GPU 小时：%1</translation>
    </message>
    <message>
        <source>Confirm</source>
        <translation>确认</translation>
    </message>
    <message>
        <source>Dry run (the engine&apos;s prediction):</source>
        <translation>试运行（引擎的预测）：</translation>
    </message>
    <message>
        <source>y apply  n cancel</source>
        <translation>y 执行  n 取消</translation>
    </message>
    <message>
        <source>Terminal too small</source>
        <translation>终端太小</translation>
    </message>
    <message>
        <source>Allocation</source>
        <translation>分配</translation>
    </message>
    <message>
        <source>Utilization</source>
        <translation>利用率</translation>
    </message>
    <message>
        <source>SM active</source>
        <translation>SM 活跃</translation>
    </message>
    <message>
        <source>Allocated but idle</source>
        <translation>已分配但空闲</translation>
    </message>
    <message>
        <source>Health</source>
        <translation>健康</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>图层</translation>
    </message>
    <message>
        <source>out</source>
        <translation>故障</translation>
    </message>
    <message>
        <source>held</source>
        <translation>已挂起</translation>
    </message>
    <message>
        <source>ID</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>NAME</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>TEAM</source>
        <translation>团队</translation>
    </message>
    <message>
        <source>CLASS</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>STATE</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>GPUS</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>POS</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>AGE</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>REASON / NODES</source>
        <translation>原因 / 节点</translation>
    </message>
    <message>
        <source>NODE</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>POOL</source>
        <translation>池</translation>
    </message>
    <message>
        <source>LEAF</source>
        <translation>叶交换机</translation>
    </message>
    <message>
        <source>ALLOCATED</source>
        <translation>已分配</translation>
    </message>
    <message>
        <source>UTIL</source>
        <translation>利用率</translation>
    </message>
    <message>
        <source>REASON</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>MODEL</source>
        <translation>型号</translation>
    </message>
    <message>
        <source>SLICES</source>
        <translation>切片</translation>
    </message>
    <message>
        <source>BUSY</source>
        <translation>占用</translation>
    </message>
    <message>
        <source>LAYOUT</source>
        <translation>布局</translation>
    </message>
    <message>
        <source>SEQ</source>
        <translation>序号</translation>
    </message>
    <message>
        <source>TIME</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>JOB</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>EVENT</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>ACTOR</source>
        <translation>操作者</translation>
    </message>
    <message>
        <source>allocated</source>
        <translation>已分配</translation>
    </message>
    <message>
        <source>busy</source>
        <translation>繁忙</translation>
    </message>
    <message>
        <source>PARENT</source>
        <translation>上级</translation>
    </message>
    <message>
        <source>IN USE</source>
        <translation>使用中</translation>
    </message>
    <message>
        <source>GUARANTEED</source>
        <translation>保证</translation>
    </message>
    <message>
        <source>SHARE</source>
        <translation>份额</translation>
    </message>
    <message>
        <source>pool %1</source>
        <translation>池 %1</translation>
    </message>
    <message>
        <source>switch view and filter it</source>
        <translation>切换视图并筛选</translation>
    </message>
    <message>
        <source>heatmap: move to the GPU beside, above or below</source>
        <translation>热图：移到旁边、上方或下方的 GPU</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>arrows/hjkl move L layer Enter node</source>
        <translation>方向键/hjkl 移动 L 图层 Enter 节点</translation>
    </message>
    <message>
        <source>L next layer</source>
        <translation>L 下一图层</translation>
    </message>
    <message>
        <source>cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>ALLOCATED / BUSY / SM</source>
        <translation>已分配 / 繁忙 / SM</translation>
    </message>
    <message>
        <source>awaiting admission</source>
        <translation>等待接纳</translation>
    </message>
    <message>
        <source>admitted, joins next</source>
        <translation>已接纳，稍后加入</translation>
    </message>
    <message>
        <source>in the model</source>
        <translation>在模型中</translation>
    </message>
    <message>
        <source>Nodes awaiting admission: %1   admit: tessera ctl node admit NODE</source>
        <translation>等待接纳的节点：%1   接纳：tessera ctl node admit NODE</translation>
    </message>
    <message>
        <source>Node warnings (the nodes&apos; last inventory reports)</source>
        <translation>节点警告（节点最近的清单报告）</translation>
    </message>
    <message>
        <source>STATUS</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>HOST</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>WARNING</source>
        <translation>警告</translation>
    </message>
</context>
<context>
    <name>tessera::console::Layout</name>
    <message>
        <source>Capacity</source>
        <translation>容量</translation>
    </message>
    <message>
        <source>MIG</source>
        <translation>MIG</translation>
    </message>
    <message>
        <source>Operations</source>
        <translation>运维</translation>
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
        <translation>会话</translation>
    </message>
    <message>
        <source>Embedded demo</source>
        <translation>内置演示</translation>
    </message>
    <message>
        <source>Connect…</source>
        <translation>连接…</translation>
    </message>
    <message>
        <source>Ctrl+K</source>
        <translation>Ctrl+K</translation>
    </message>
    <message>
        <source>Speed </source>
        <translation>速度 </translation>
    </message>
    <message>
        <source>paused</source>
        <translation>已暂停</translation>
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
        <translation>图层 </translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>适应窗口</translation>
    </message>
    <message>
        <source>Ctrl+0</source>
        <translation>Ctrl+0</translation>
    </message>
    <message>
        <source>Search jobs, nodes, GPUs (Ctrl+F)</source>
        <translation>搜索作业、节点、GPU（Ctrl+F）</translation>
    </message>
    <message>
        <source>Pending</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>Why pending</source>
        <translation>等待原因</translation>
    </message>
    <message>
        <source>MIG map</source>
        <translation>MIG 分布图</translation>
    </message>
    <message>
        <source>Repartition</source>
        <translation>重新分区</translation>
    </message>
    <message>
        <source>Hardware</source>
        <translation>硬件</translation>
    </message>
    <message>
        <source>Activity</source>
        <translation>活动</translation>
    </message>
    <message>
        <source>Session: %1</source>
        <translation>会话：%1</translation>
    </message>
    <message>
        <source>Dry run: %1 → %2</source>
        <translation>试运行：%1 → %2</translation>
    </message>
    <message>
        <source>%1 → %2</source>
        <translation>%1 → %2</translation>
    </message>
    <message>
        <source>Refused: %1 — %2</source>
        <translation>已拒绝：%1 — %2</translation>
    </message>
    <message>
        <source>%1 — disconnected: %2</source>
        <translation>%1 — 已断开连接：%2</translation>
    </message>
    <message>
        <source>GPUs %1 / %2 allocated</source>
        <translation>已分配 GPU %1 / %2</translation>
    </message>
    <message>
        <source>, %1 busy, %2 SM-active</source>
        <translation>，%1 繁忙，%2 SM 活跃</translation>
    </message>
    <message>
        <source> · %1 pending, %2 running · cycle %3 ms</source>
        <translation> · 等待 %1，运行 %2 · 调度周期 %3 ms</translation>
    </message>
    <message>
        <source>Layout refused: %1</source>
        <translation>布局被拒绝：%1</translation>
    </message>
    <message>
        <source>Cannot start the embedded demo: %1</source>
        <translation>无法启动内置演示：%1</translation>
    </message>
    <message>
        <source>Embedded demo (simulated, %1)</source>
        <translation>内置演示（模拟，%1）</translation>
    </message>
    <message>
        <source>Connect to tesserad</source>
        <translation>连接到 tesserad</translation>
    </message>
    <message>
        <source>PEM file; empty = plaintext (loopback only)</source>
        <translation>PEM 文件；留空 = 明文（仅限本地回环）</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <source>Token</source>
        <translation>令牌</translation>
    </message>
    <message>
        <source>CA certificate</source>
        <translation>CA 证书</translation>
    </message>
    <message>
        <source>tesserad at %1</source>
        <translation>位于 %1 的 tesserad</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Utilization</source>
        <translation>利用率</translation>
    </message>
    <message>
        <source>Idle GPUs</source>
        <translation>闲置 GPU</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <source>Hold</source>
        <translation>挂起</translation>
    </message>
    <message>
        <source>Release</source>
        <translation>释放</translation>
    </message>
    <message>
        <source>Preempt</source>
        <translation>抢占</translation>
    </message>
    <message>
        <source>Cancel job</source>
        <translation>取消作业</translation>
    </message>
    <message>
        <source>Move to top</source>
        <translation>移到顶部</translation>
    </message>
    <message>
        <source>Move to bottom</source>
        <translation>移到底部</translation>
    </message>
    <message>
        <source>Export report…</source>
        <translation>导出报告…</translation>
    </message>
    <message>
        <source>Ctrl+E</source>
        <translation>Ctrl+E</translation>
    </message>
    <message>
        <source>A utilization and chargeback report as PDF, HTML, CSV or JSON</source>
        <translation>以 PDF、HTML、CSV 或 JSON 格式导出利用率与费用分摊报告</translation>
    </message>
    <message>
        <source>Report written to %1</source>
        <translation>报告已写入 %1</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>Ctrl+,</source>
        <translation>Ctrl+,</translation>
    </message>
    <message>
        <source>Settings saved; a new language applies at the next start</source>
        <translation>设置已保存；新的语言将在下次启动时生效</translation>
    </message>
    <message>
        <source> · %1 ready, synced %2 ago</source>
        <translation> · %1 就绪，%2 前已同步</translation>
    </message>
    <message>
        <source> · %1 UNAVAILABLE, never synced</source>
        <translation> · %1 不可用，从未同步</translation>
    </message>
    <message>
        <source> · %1 UNAVAILABLE, last synced %2 ago</source>
        <translation> · %1 不可用，上次同步于 %2 前</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>%1 layout</source>
        <translation>%1 布局</translation>
    </message>
    <message>
        <source>Reset layout</source>
        <translation>重置布局</translation>
    </message>
    <message>
        <source>Overview</source>
        <translation>概览</translation>
    </message>
    <message>
        <source>Pending: every job</source>
        <translation>等待中：全部作业</translation>
    </message>
    <message>
        <source>Pending: only “%1” (activate it again for every job)</source>
        <translation>等待中：仅“%1”（再次激活以显示全部作业）</translation>
    </message>
    <message>
        <source>GPU heatmap</source>
        <translation>GPU 热力图</translation>
    </message>
    <message>
        <source>Pending jobs</source>
        <translation>等待中的作业</translation>
    </message>
    <message>
        <source>Running jobs</source>
        <translation>运行中的作业</translation>
    </message>
    <message>
        <source>Why the selected job is pending</source>
        <translation>所选作业等待的原因</translation>
    </message>
    <message>
        <source>MIG repartition editor</source>
        <translation>MIG 重新分区编辑器</translation>
    </message>
    <message>
        <source>Utilization charts</source>
        <translation>利用率图表</translation>
    </message>
    <message>
        <source>Timeline of running jobs and reservations</source>
        <translation>运行中作业与预留的时间线</translation>
    </message>
    <message>
        <source>Hardware tree</source>
        <translation>硬件树</translation>
    </message>
    <message>
        <source>Activity log</source>
        <translation>活动日志</translation>
    </message>
    <message>
        <source>Search jobs, nodes, GPUs</source>
        <translation>搜索作业、节点、GPU</translation>
    </message>
    <message>
        <source>Heatmap layer</source>
        <translation>热力图图层</translation>
    </message>
    <message>
        <source>Demo speed</source>
        <translation>演示速度</translation>
    </message>
    <message>
        <source>Pin to selected GPUs</source>
        <translation>固定到所选 GPU</translation>
    </message>
    <message>
        <source>Go to heatmap</source>
        <translation>转到热图</translation>
    </message>
    <message>
        <source>Go to pending queue</source>
        <translation>转到等待队列</translation>
    </message>
    <message>
        <source>Nodes awaiting admission</source>
        <translation>等待接纳的节点</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Sharing study…</source>
        <translation>GPU 共享研究…</translation>
    </message>
    <message>
        <source>Compare whole GPUs, time-slicing, MPS and MIG on this cluster in simulation</source>
        <translation>在模拟中比较此集群上的整卡 GPU、时间片、MPS 和 MIG</translation>
    </message>
</context>
<context>
    <name>tessera::console::SettingsDialog</name>
    <message>
        <source>System default</source>
        <translation>系统默认</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>The language changes when Tessera is started again.</source>
        <translation>重新启动 Tessera 后语言才会更改。</translation>
    </message>
    <message>
        <source>TESSERA_LANG=%1 is set in the environment and wins over this setting.</source>
        <translation>环境变量 TESSERA_LANG=%1 已设置，优先于此设置。</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
</context>
<context>
    <name>tessera::text</name>
    <message>
        <source>%1, %2</source>
        <translation>%1、%2</translation>
    </message>
    <message>
        <source>%1 and %2</source>
        <translation>%1 和 %2</translation>
    </message>
    <message>
        <source>%1; %2</source>
        <translation>%1；%2</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 个节点：%2</translation>
    </message>
    <message>
        <source>job %1</source>
        <translation>作业 %1</translation>
    </message>
    <message>
        <source>jobs %1</source>
        <translation>作业 %1</translation>
    </message>
    <message>
        <source>%1 GPU %2</source>
        <translation>%1 的 GPU %2</translation>
    </message>
    <message>
        <source>node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>NVLink domain</source>
        <translation>NVLink 域</translation>
    </message>
    <message>
        <source>leaf switch</source>
        <translation>叶交换机</translation>
    </message>
    <message>
        <source>spine</source>
        <translation>脊交换机</translation>
    </message>
    <message>
        <source>cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>on one node</source>
        <translation>单个节点上</translation>
    </message>
    <message>
        <source>NVLink-connected</source>
        <translation>NVLink 互联</translation>
    </message>
    <message>
        <source>under one leaf switch</source>
        <translation>同一叶交换机下</translation>
    </message>
    <message>
        <source>under one spine</source>
        <translation>同一脊交换机下</translation>
    </message>
    <message>
        <source>in the cluster</source>
        <translation>集群内</translation>
    </message>
    <message>
        <source>pending</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>admitted</source>
        <translation>已准入</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>completed</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>preempted</source>
        <translation>已被抢占</translation>
    </message>
    <message>
        <source>node not up</source>
        <translation>节点不可用</translation>
    </message>
    <message>
        <source>pool mismatch</source>
        <translation>资源池不匹配</translation>
    </message>
    <message>
        <source>GPU model not allowed</source>
        <translation>GPU 型号不被允许</translation>
    </message>
    <message>
        <source>GPU memory too small</source>
        <translation>GPU 显存不足</translation>
    </message>
    <message>
        <source>not enough free GPUs</source>
        <translation>空闲 GPU 不足</translation>
    </message>
    <message>
        <source>no MIG GPU with the profile</source>
        <translation>没有支持该配置文件的 MIG GPU</translation>
    </message>
    <message>
        <source>no free MIG slot for the profile</source>
        <translation>没有可容纳该配置文件的空闲 MIG 位置</translation>
    </message>
    <message>
        <source>no GPU share left</source>
        <translation>没有剩余的 GPU 份额</translation>
    </message>
    <message>
        <source>not enough free CPUs</source>
        <translation>空闲 CPU 不足</translation>
    </message>
    <message>
        <source>not enough free memory</source>
        <translation>空闲内存不足</translation>
    </message>
    <message>
        <source>GPUs reserved</source>
        <translation>GPU 已被预留</translation>
    </message>
    <message>
        <source>not among the pinned GPUs</source>
        <translation>不在指定的 GPU 范围内</translation>
    </message>
    <message>
        <source>%1/%2 nodes fit</source>
        <translation>%1/%2 个节点满足条件</translation>
    </message>
    <message>
        <source>waiting for the next scheduling cycle</source>
        <translation>等待下一个调度周期</translation>
    </message>
    <message>
        <source>held by an operator</source>
        <translation>已被操作员挂起</translation>
    </message>
    <message>
        <source>team %1 may hold at most %2 GPUs (guaranteed + borrow); the job needs %3</source>
        <translation>团队 %1 最多可占用 %2 个 GPU（保证 + 借用）；该作业需要 %3 个</translation>
    </message>
    <message>
        <source>pinned GPU %1 does not exist</source>
        <translation>指定的 GPU %1 不存在</translation>
    </message>
    <message>
        <source>team %1 uses %2 of its %3 guaranteed %4 GPUs</source>
        <translation>团队 %1 已使用其 %3 个保证 %4 GPU 中的 %2 个</translation>
    </message>
    <message>
        <source>%1 and may borrow %2; the job needs %3</source>
        <translation>%1，且最多可借用 %2 个；该作业需要 %3 个</translation>
    </message>
    <message>
        <source>%1; the job needs %2 and other teams lend only %3 idle %4 GPUs now</source>
        <translation>%1；该作业需要 %2 个，而其他团队目前仅能借出 %3 个空闲的 %4 GPU</translation>
    </message>
    <message>
        <source>team %1 has no quota for %2 GPUs</source>
        <translation>团队 %1 没有 %2 GPU 的配额</translation>
    </message>
    <message>
        <source>the job requests no GPU</source>
        <translation>该作业未请求 GPU</translation>
    </message>
    <message>
        <source>no node can host a task: %1</source>
        <translation>没有节点能容纳任务：%1</translation>
    </message>
    <message>
        <source>tasks of %1 GPUs</source>
        <translation>任务（每个 %1 个 GPU）</translation>
    </message>
    <message>
        <source>tasks of one %1 instance</source>
        <translation>任务（每个一个 %1 实例）</translation>
    </message>
    <message>
        <source>tasks of %1 milli-GPU</source>
        <translation>任务（每个 %1 milli-GPU）</translation>
    </message>
    <message>
        <source>tasks</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>the gang needs %1 %2; the cluster has room for %3 (%4)</source>
        <translation>该任务组需要 %1 个%2；集群仅可容纳 %3 个（%4）</translation>
    </message>
    <message>
        <source>the gang needs %1 %2 within one %3 (required); the roomiest %3 has room for %4</source>
        <translation>该任务组必须在同一%3内放置 %1 个%2；最宽裕的%3仅可容纳 %4 个</translation>
    </message>
    <message>
        <source>internal: a unit with room could not be taken</source>
        <translation>内部错误：无法占用有空余容量的单元</translation>
    </message>
    <message>
        <source>internal: the preemption plan did not hold (%1)</source>
        <translation>内部错误：抢占计划未能成立（%1）</translation>
    </message>
    <message>
        <source>requeued after preemption by job %1</source>
        <translation>被作业 %1 抢占后重新排队</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation>%1 分钟</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分</translation>
    </message>
    <message>
        <source>fits now; it starts in the next scheduling cycle</source>
        <translation>当前可放置；将在下一个调度周期启动</translation>
    </message>
    <message>
        <source>the GPUs it fits on are reserved (maintenance or team reservation)</source>
        <translation>该作业可放置的 GPU 已被预留（维护预留或团队预留）</translation>
    </message>
    <message>
        <source>the GPUs it fits on are reserved for higher %1 (backfill reservations)</source>
        <translation>该作业可放置的 GPU 已为优先级更高的%1 预留（回填预留）</translation>
    </message>
    <message>
        <source>fragmentation: %1</source>
        <translation>碎片化：%1</translation>
    </message>
    <message>
        <source>%1 GPUs free, but the largest %2 free block is %3 (the job needs %4)</source>
        <translation>%1 个 GPU 空闲，但%2的最大空闲块只有 %3 个（该作业需要 %4 个）</translation>
    </message>
    <message>
        <source>would start now if the topology constraint were relaxed to %1</source>
        <translation>若将拓扑约束放宽到 %1，即可立即启动</translation>
    </message>
    <message>
        <source>would start now if GPU %1 were repartitioned from %2 to %3 (%4 MIG changes, busy instances kept)</source>
        <translation>若将 GPU %1 从 %2 重新分区为 %3，即可立即启动（%4 处 MIG 变更，保留使用中的实例）</translation>
    </message>
    <message>
        <source>empty</source>
        <translation>空</translation>
    </message>
    <message>
        <source>would start now if the guarantee of %1 on %2 were +%3 GPUs</source>
        <translation>若团队 %1 在 %2 上的保证配额增加 %3 个 GPU，即可立即启动</translation>
    </message>
    <message>
        <source>would start now by preempting %1 (%2 GPU-hours of work lost)</source>
        <translation>若抢占%1，即可立即启动（将损失 %2 GPU 小时的工作）</translation>
    </message>
    <message>
        <source>would be considered in the next cycle once released</source>
        <translation>释放后将在下一个调度周期中被考虑</translation>
    </message>
    <message>
        <source>would start when %1 ends (~%2)</source>
        <translation>将在%1 结束后启动（约 %2）</translation>
    </message>
    <message>
        <source>would start when %1 end (~%2)</source>
        <translation>将在%1 结束后启动（约 %2）</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>submit job %1</source>
        <translation>提交作业 %1</translation>
    </message>
    <message>
        <source>cancel job %1</source>
        <translation>取消作业 %1</translation>
    </message>
    <message>
        <source>hold job %1</source>
        <translation>挂起作业 %1</translation>
    </message>
    <message>
        <source>release job %1</source>
        <translation>释放作业 %1</translation>
    </message>
    <message>
        <source>set priority of job %1 to %2</source>
        <translation>将作业 %1 的优先级设为 %2</translation>
    </message>
    <message>
        <source>move job %1 to the top</source>
        <translation>将作业 %1 移到顶部</translation>
    </message>
    <message>
        <source>move job %1 to the bottom</source>
        <translation>将作业 %1 移到底部</translation>
    </message>
    <message>
        <source>move job %1 before job %2</source>
        <translation>将作业 %1 移到作业 %2 之前</translation>
    </message>
    <message>
        <source>pin job %1 to gpus [%2] nodes [%3]</source>
        <translation>将作业 %1 指定到 GPU [%2] 节点 [%3]</translation>
    </message>
    <message>
        <source>preempt job %1</source>
        <translation>抢占作业 %1</translation>
    </message>
    <message>
        <source>repartition %1 to %2</source>
        <translation>将 %1 重新分区为 %2</translation>
    </message>
    <message>
        <source>repartition %1 to %2 (force)</source>
        <translation>将 %1 重新分区为 %2（强制）</translation>
    </message>
    <message>
        <source>drain node %1</source>
        <translation>排空节点 %1</translation>
    </message>
    <message>
        <source>undrain node %1</source>
        <translation>取消排空节点 %1</translation>
    </message>
    <message>
        <source>set quota of team %1 on %2</source>
        <translation>设置团队 %1 在 %2 上的配额</translation>
    </message>
    <message>
        <source>create reservation %1 on [%2]</source>
        <translation>在 [%2] 上创建预留 %1</translation>
    </message>
    <message>
        <source>delete reservation %1</source>
        <translation>删除预留 %1</translation>
    </message>
    <message>
        <source>submitted job %1</source>
        <translation>已提交作业 %1</translation>
    </message>
    <message>
        <source>job %1 cancelled</source>
        <translation>作业 %1 已取消</translation>
    </message>
    <message>
        <source>job %1 held</source>
        <translation>作业 %1 已挂起</translation>
    </message>
    <message>
        <source>job %1 released</source>
        <translation>作业 %1 已释放</translation>
    </message>
    <message>
        <source>job %1 now %2</source>
        <translation>作业 %1 的优先级现为 %2</translation>
    </message>
    <message>
        <source>job %1 moved to the top of its priority</source>
        <translation>作业 %1 已移到同优先级的最前面</translation>
    </message>
    <message>
        <source>job %1 moved to the bottom of its priority</source>
        <translation>作业 %1 已移到同优先级的最后面</translation>
    </message>
    <message>
        <source>job %1 moved ahead of job %2</source>
        <translation>作业 %1 已移到作业 %2 之前</translation>
    </message>
    <message>
        <source>job %1 pinned to %2 GPU(s)</source>
        <translation>作业 %1 已指定到 %2 个 GPU</translation>
    </message>
    <message>
        <source>job %1 unpinned</source>
        <translation>作业 %1 已取消指定</translation>
    </message>
    <message>
        <source>job %1 preempted</source>
        <translation>作业 %1 已被抢占</translation>
    </message>
    <message>
        <source>GPU %1 repartitioned to %2</source>
        <translation>GPU %1 已重新分区为 %2</translation>
    </message>
    <message>
        <source>node %1 stays drained (%2)</source>
        <translation>节点 %1 保持排空（%2）</translation>
    </message>
    <message>
        <source>node %1 drained</source>
        <translation>节点 %1 已排空</translation>
    </message>
    <message>
        <source>node %1 drained (%2)</source>
        <translation>节点 %1 已排空（%2）</translation>
    </message>
    <message>
        <source>node %1 back in service</source>
        <translation>节点 %1 已恢复服务</translation>
    </message>
    <message>
        <source>quota of team %1 on %2 set to %3 guaranteed, %4 borrow</source>
        <translation>团队 %1 在 %2 上的配额已设为保证 %3 个、可借用 %4 个</translation>
    </message>
    <message>
        <source>reservation %1 created</source>
        <translation>预留 %1 已创建</translation>
    </message>
    <message>
        <source>reservation %1 deleted</source>
        <translation>预留 %1 已删除</translation>
    </message>
    <message>
        <source>dry run: %1; %2</source>
        <translation>试运行：%1；%2</translation>
    </message>
    <message>
        <source>%1 job(s) would start</source>
        <translation>%1 个作业将启动</translation>
    </message>
    <message>
        <source>%1 job(s) would start (%2)</source>
        <translation>%1 个作业将启动（%2）</translation>
    </message>
    <message>
        <source>%1 preempted</source>
        <translation>%1 个作业被抢占</translation>
    </message>
    <message>
        <source>%1 preempted (%2)</source>
        <translation>%1 个作业被抢占（%2）</translation>
    </message>
    <message>
        <source>%1 stopped (%2)</source>
        <translation>%1 个作业被停止（%2）</translation>
    </message>
    <message>
        <source>%1 GPU-hours lost</source>
        <translation>损失 %1 GPU 小时</translation>
    </message>
    <message>
        <source>warning: %1</source>
        <translation>警告：%1</translation>
    </message>
    <message>
        <source>no job %1</source>
        <translation>作业 %1 不存在</translation>
    </message>
    <message>
        <source>no node %1</source>
        <translation>节点 %1 不存在</translation>
    </message>
    <message>
        <source>unknown GPU &apos;%1&apos; (expected node/index)</source>
        <translation>未知的 GPU &apos;%1&apos;（格式应为“节点/序号”）</translation>
    </message>
    <message>
        <source>unknown node &apos;%1&apos;</source>
        <translation>未知的节点 &apos;%1&apos;</translation>
    </message>
    <message>
        <source>job %1 is not pending</source>
        <translation>作业 %1 不在等待中</translation>
    </message>
    <message>
        <source>job %1 is not a pending job</source>
        <translation>作业 %1 不是等待中的作业</translation>
    </message>
    <message>
        <source>GPU %1 is not in MIG mode</source>
        <translation>GPU %1 未处于 MIG 模式</translation>
    </message>
    <message>
        <source>node %1 is already drained</source>
        <translation>节点 %1 已处于排空状态</translation>
    </message>
    <message>
        <source>node %1 is not drained</source>
        <translation>节点 %1 未被排空</translation>
    </message>
    <message>
        <source>quota key &apos;%1&apos; is neither a GPU model of this cluster, &apos;pool:NAME&apos; nor &apos;*&apos;</source>
        <translation>配额键 &apos;%1&apos; 既不是本集群的 GPU 型号，也不是 &apos;pool:NAME&apos; 或 &apos;*&apos;</translation>
    </message>
    <message>
        <source>a reservation needs at least one node</source>
        <translation>预留至少需要一个节点</translation>
    </message>
    <message>
        <source>job %1 is already %2</source>
        <translation>作业 %1 已处于%2状态</translation>
    </message>
    <message>
        <source>job %1 is %2; only pending jobs can be held or released</source>
        <translation>作业 %1 处于%2状态；只有等待中的作业才能挂起或释放</translation>
    </message>
    <message>
        <source>job %1 is already held</source>
        <translation>作业 %1 已处于挂起状态</translation>
    </message>
    <message>
        <source>job %1 is not held</source>
        <translation>作业 %1 未被挂起</translation>
    </message>
    <message>
        <source>job %1 has ended</source>
        <translation>作业 %1 已结束</translation>
    </message>
    <message>
        <source>unknown priority class &apos;%1&apos; (known: %2)</source>
        <translation>未知的优先级类别 &apos;%1&apos;（已知：%2）</translation>
    </message>
    <message>
        <source>job %1 is %2; only pending jobs can be pinned</source>
        <translation>作业 %1 处于%2状态；只有等待中的作业才能指定 GPU</translation>
    </message>
    <message>
        <source>job %1 needs %2 GPUs; the pin names %3</source>
        <translation>作业 %1 需要 %2 个 GPU；但只指定了 %3 个</translation>
    </message>
    <message>
        <source>job %1 is %2, not running</source>
        <translation>作业 %1 处于%2状态，未在运行</translation>
    </message>
    <message>
        <source>node %1 still runs job %2</source>
        <translation>节点 %1 仍在运行作业 %2</translation>
    </message>
    <message>
        <source>the new layout removes busy instances of job(s) %1 (keep them at the same start, or force to preempt them)</source>
        <translation>新布局会移除作业 %1 正在使用的实例（请将其保留在相同的起始位置，或强制执行以抢占它们）</translation>
    </message>
    <message>
        <source>team %1 would use %2 %3 GPUs under the new quota, above guaranteed + borrow %4 (preempt or wait first)</source>
        <translation>按新配额，团队 %1 将使用 %2 个 %3 GPU，超过保证 + 借用的 %4 个（请先抢占或等待）</translation>
    </message>
    <message>
        <source>valid</source>
        <translation>有效</translation>
    </message>
    <message>
        <source>not placed</source>
        <translation>未放置</translation>
    </message>
    <message>
        <source>check 1 (allowed start)</source>
        <translation>检查 1（允许的起始位置）</translation>
    </message>
    <message>
        <source>check 2 (memory overlap)</source>
        <translation>检查 2（显存重叠）</translation>
    </message>
    <message>
        <source>check 3 (instance count)</source>
        <translation>检查 3（实例数量）</translation>
    </message>
    <message>
        <source>check 4 (engines)</source>
        <translation>检查 4（引擎）</translation>
    </message>
    <message>
        <source>check 5 (compute slices)</source>
        <translation>检查 5（计算切片）</translation>
    </message>
    <message>
        <source>compute instances</source>
        <translation>计算实例</translation>
    </message>
    <message>
        <source>%1 failed: %2</source>
        <translation>%1未通过：%2</translation>
    </message>
    <message>
        <source>instance %1 has no start slice (write it as %2@START)</source>
        <translation>实例 %1 没有起始切片（请写作 %2@START）</translation>
    </message>
    <message>
        <source>%1 cannot start at memory slice %2; %3 may start only at {%4} on %5</source>
        <translation>%1 不能从显存切片 %2 开始；在 %5 上，%3 只能从 {%4} 开始</translation>
    </message>
    <message>
        <source>slice %1</source>
        <translation>切片 %1</translation>
    </message>
    <message>
        <source>slices %1-%2</source>
        <translation>切片 %1-%2</translation>
    </message>
    <message>
        <source>%1 (%2) overlaps %3 (%4)</source>
        <translation>%1（%2）与 %3（%4）重叠</translation>
    </message>
    <message>
        <source>more than 1 instance of %1 on one %2 (%3 is instance #2)</source>
        <translation>一个 %2 上有超过 1 个 %1 实例（%3 是第 2 个实例）</translation>
    </message>
    <message>
        <source>more than %1 instances of %2 on one %3 (%4 is instance #%5)</source>
        <translation>一个 %3 上有超过 %1 个 %2 实例（%4 是第 %5 个实例）</translation>
    </message>
    <message>
        <source>adding %1 needs %2 %3 but a %4 has %5</source>
        <translation>添加 %1 需要 %2 个%3，但 %4 只有 %5 个</translation>
    </message>
    <message>
        <source>%1 (at most one +me instance per GPU)</source>
        <translation>%1（每个 GPU 最多一个 +me 实例）</translation>
    </message>
    <message>
        <source>copy engines (CE)</source>
        <translation>复制引擎（CE）</translation>
    </message>
    <message>
        <source>video decoders (NVDEC)</source>
        <translation>视频解码器（NVDEC）</translation>
    </message>
    <message>
        <source>video encoders (NVENC)</source>
        <translation>视频编码器（NVENC）</translation>
    </message>
    <message>
        <source>JPEG decoders (NVJPG)</source>
        <translation>JPEG 解码器（NVJPG）</translation>
    </message>
    <message>
        <source>optical-flow accelerators (OFA)</source>
        <translation>光流加速器（OFA）</translation>
    </message>
    <message>
        <source>engines</source>
        <translation>引擎</translation>
    </message>
    <message>
        <source>adding %1 exceeds the GPU&apos;s %2 compute slices</source>
        <translation>添加 %1 会超出该 GPU 的 %2 个计算切片</translation>
    </message>
    <message>
        <source>the compute instances of %1 do not fit: the GPU catalog has no compute_instances table for %2, so a GPU instance holds one compute instance spanning all its %3 compute slices</source>
        <translation>%1 的计算实例无法容纳：GPU 目录中没有 %2 的 compute_instances 表，因此一个 GPU 实例只包含一个覆盖其全部 %3 个计算切片的计算实例</translation>
    </message>
    <message>
        <source>the compute instances of %1 do not fit a %2-slice GPU instance (allowed CI sizes and counts: mig.compute_instances of %3 in the GPU catalog)</source>
        <translation>%1 的计算实例无法放入 %2 切片的 GPU 实例（允许的 CI 大小和数量：见 GPU 目录中 %3 的 mig.compute_instances）</translation>
    </message>
    <message>
        <source>%1 and %2 more</source>
        <translation>%1 等另外 %2 个</translation>
    </message>
    <message>
        <source>running since %1 on %2</source>
        <translation>自 %1 起在 %2 上运行</translation>
    </message>
    <message>
        <source>every instance of the new layout needs a start</source>
        <translation>新布局中的每个实例都需要起始切片</translation>
    </message>
    <message>
        <source>the instance at slice %1 is busy</source>
        <translation>切片 %1 处的实例正在使用中</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>t=%1 %2: %3</source>
        <translation>t=%1 %2：%3</translation>
    </message>
    <message>
        <source>submitted</source>
        <translation>已提交</translation>
    </message>
    <message>
        <source>started</source>
        <translation>已启动</translation>
    </message>
    <message>
        <source>requeued</source>
        <translation>已重新排队</translation>
    </message>
    <message>
        <source>held</source>
        <translation>已挂起</translation>
    </message>
    <message>
        <source>released</source>
        <translation>已释放</translation>
    </message>
    <message>
        <source>command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>submitted on hold</source>
        <translation>以挂起状态提交</translation>
    </message>
    <message>
        <source>admitted: %1</source>
        <translation>已准入：%1</translation>
    </message>
    <message>
        <source>placed</source>
        <translation>已放置</translation>
    </message>
    <message>
        <source>backfilled: ends before the reservations of higher jobs or avoids their GPUs</source>
        <translation>回填：在优先级更高的作业的预留开始前结束，或避开其 GPU</translation>
    </message>
    <message>
        <source>after preempting %1; was blocked: %2</source>
        <translation>在抢占%1之后；此前受阻：%2</translation>
    </message>
    <message>
        <source>restored from a snapshot (running since t=%1)</source>
        <translation>从快照恢复（自 t=%1 起运行）</translation>
    </message>
    <message>
        <source>started on %1 (spans one %2)</source>
        <translation>在 %1 上启动（位于同一%2内）</translation>
    </message>
    <message>
        <source>preempted by job %1 (%2, team %3): %4; work lost %5 min since its last checkpoint (%6 GPU-hours)</source>
        <translation>被作业 %1（%2，团队 %3）抢占：%4；自上次检查点以来损失 %5 分钟的工作（%6 GPU 小时）</translation>
    </message>
    <message>
        <source>preempted by job %1 (%2, team %3): %4; work lost %5 min since its start (%6 GPU-hours)</source>
        <translation>被作业 %1（%2，团队 %3）抢占：%4；自启动以来损失 %5 分钟的工作（%6 GPU 小时）</translation>
    </message>
    <message>
        <source>its team is borrowing GPUs that team %1 is guaranteed</source>
        <translation>其团队正在借用保证给团队 %1 的 GPU</translation>
    </message>
    <message>
        <source>higher priority (%1 &gt; %2)</source>
        <translation>优先级更高（%1 &gt; %2）</translation>
    </message>
    <message>
        <source>preempted by operator %1</source>
        <translation>被操作员 %1 抢占</translation>
    </message>
    <message>
        <source>its MIG instance was repartitioned away</source>
        <translation>其 MIG 实例因重新分区而被移除</translation>
    </message>
    <message>
        <source>node %1 failed</source>
        <translation>节点 %1 故障</translation>
    </message>
    <message>
        <source>GPU %1 fault (Xid %2)</source>
        <translation>GPU %1 故障（Xid %2）</translation>
    </message>
    <message>
        <source>GPU %1 is being repartitioned</source>
        <translation>GPU %1 正在重新分区</translation>
    </message>
    <message>
        <source>GPU %1 fault (Xid %2, %3)</source>
        <translation>GPU %1 故障（Xid %2，%3）</translation>
    </message>
    <message>
        <source>requeued with %1 min of work kept</source>
        <translation>重新排队，保留了 %1 分钟的工作</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>运行结束</translation>
    </message>
    <message>
        <source>finished (simulated)</source>
        <translation>运行结束（模拟）</translation>
    </message>
    <message>
        <source>time limit reached</source>
        <translation>已达到时间限制</translation>
    </message>
    <message>
        <source>the job failed (as in the trace)</source>
        <translation>作业失败（与跟踪记录一致）</translation>
    </message>
    <message>
        <source>cancelled by %1</source>
        <translation>被 %1 取消</translation>
    </message>
    <message>
        <source>held by %1</source>
        <translation>被 %1 挂起</translation>
    </message>
    <message>
        <source>released by %1</source>
        <translation>被 %1 释放</translation>
    </message>
    <message>
        <source>%1: applied: %2</source>
        <translation>%1：已应用：%2</translation>
    </message>
    <message>
        <source>%1: refused: %2</source>
        <translation>%1：已拒绝：%2</translation>
    </message>
    <message>
        <source>dry run: %1: %2</source>
        <translation>试运行：%1：%2</translation>
    </message>
    <message>
        <source>job %1 on %2 has no runtime estimate and may still run when reservation %3 starts at t=%4</source>
        <translation>%2 上的作业 %1 没有运行时间估计，在预留 %3 于 t=%4 开始时可能仍在运行</translation>
    </message>
    <message>
        <source>job %1 on %2 is expected to run until t=%3 when reservation %4 starts at t=%5</source>
        <translation>%2 上的作业 %1 预计运行到 t=%3，而预留 %4 在 t=%5 开始</translation>
    </message>
    <message>
        <source>job %1 already exists</source>
        <translation>作业 %1 已存在</translation>
    </message>
    <message>
        <source>a job needs at least one task</source>
        <translation>作业至少需要一个任务</translation>
    </message>
    <message>
        <source>job %1 requests no GPU (give gpus, mig or fraction)</source>
        <translation>作业 %1 未请求 GPU（请指定 gpus、mig 或 fraction）</translation>
    </message>
    <message>
        <source>unknown team &apos;%1&apos;</source>
        <translation>未知的团队 &apos;%1&apos;</translation>
    </message>
    <message>
        <source>pin names unknown GPU &apos;%1&apos;</source>
        <translation>指定了未知的 GPU &apos;%1&apos;</translation>
    </message>
    <message>
        <source>pin names unknown node &apos;%1&apos;</source>
        <translation>指定了未知的节点 &apos;%1&apos;</translation>
    </message>
    <message>
        <source>a reservation needs an id</source>
        <translation>预留需要一个 ID</translation>
    </message>
    <message>
        <source>reservation &apos;%1&apos; already exists</source>
        <translation>预留 &apos;%1&apos; 已存在</translation>
    </message>
    <message>
        <source>a reservation must end after it starts</source>
        <translation>预留的结束时间必须晚于开始时间</translation>
    </message>
    <message>
        <source>no reservation &apos;%1&apos;</source>
        <translation>预留 &apos;%1&apos; 不存在</translation>
    </message>
    <message>
        <source>guaranteed and borrow must be &gt;= 0</source>
        <translation>保证值和借用值必须 &gt;= 0</translation>
    </message>
    <message>
        <source>cannot lend more than the guaranteed %1</source>
        <translation>借出量不能超过保证的 %1 个</translation>
    </message>
    <message>
        <source>in MIG layout item &apos;%1&apos;: %2</source>
        <translation>MIG 布局项 &apos;%1&apos; 中：%2</translation>
    </message>
    <message>
        <source>compute instance &apos;%1&apos; must look like &apos;2c&apos;</source>
        <translation>计算实例 &apos;%1&apos; 的格式应类似 &apos;2c&apos;</translation>
    </message>
    <message>
        <source>compute instance &apos;%1&apos; must have 1..%2 compute slices</source>
        <translation>计算实例 &apos;%1&apos; 必须有 1..%2 个计算切片</translation>
    </message>
    <message>
        <source>too many compute instances</source>
        <translation>计算实例过多</translation>
    </message>
    <message>
        <source>GPU model &apos;%1&apos; is not MIG capable</source>
        <translation>GPU 型号 &apos;%1&apos; 不支持 MIG</translation>
    </message>
    <message>
        <source>empty item in MIG layout &apos;%1&apos;</source>
        <translation>MIG 布局 &apos;%1&apos; 中有空项</translation>
    </message>
    <message>
        <source>repeat count must be 1..%1</source>
        <translation>重复次数必须为 1..%1</translation>
    </message>
    <message>
        <source>missing &apos;)&apos; after compute instances</source>
        <translation>计算实例后缺少 &apos;)&apos;</translation>
    </message>
    <message>
        <source>start must be a memory slice 0..%1</source>
        <translation>起始位置必须是显存切片 0..%1</translation>
    </message>
    <message>
        <source>a repeated item cannot have a fixed start</source>
        <translation>重复项不能有固定的起始位置</translation>
    </message>
    <message>
        <source>unknown profile &apos;%1&apos; for %2 (profiles: %3)</source>
        <translation>%2 没有配置文件 &apos;%1&apos;（可用配置文件：%3）</translation>
    </message>
    <message>
        <source>&apos;()&apos; lists no compute instances</source>
        <translation>&apos;()&apos; 中没有列出任何计算实例</translation>
    </message>
    <message>
        <source>MIG layout has more than %1 instances</source>
        <translation>MIG 布局的实例超过 %1 个</translation>
    </message>
    <message>
        <source>busy instance %1 is not in the target; a repartition may not destroy running work (drain it first, or add it to the target)</source>
        <translation>使用中的实例 %1 不在目标中；重新分区不得破坏正在运行的工作（请先排空，或将其加入目标）</translation>
    </message>
    <message>
        <source>current layout is invalid: %1</source>
        <translation>当前布局无效：%1</translation>
    </message>
    <message>
        <source>target is impossible on any layout: %1</source>
        <translation>目标在任何布局下都无法实现：%1</translation>
    </message>
    <message>
        <source>%1 x %2 exceeds its maximum of %3 per GPU</source>
        <translation>%1 × %2 超过了每个 GPU 最多 %3 个的上限</translation>
    </message>
    <message>
        <source>the target needs %1 memory slices; a %2 has %3</source>
        <translation>目标需要 %1 个显存切片；而 %2 只有 %3 个</translation>
    </message>
    <message>
        <source>the target needs %1 compute slices; a %2 has %3</source>
        <translation>目标需要 %1 个计算切片；而 %2 只有 %3 个</translation>
    </message>
    <message>
        <source>the target needs more engines than a %1 has (CE %2/%3, DEC %4/%5, JPEG %6/%7, OFA %8/%9; e.g. two +me instances)</source>
        <translation>目标所需的引擎超过 %1 所具有的数量（CE %2/%3，DEC %4/%5，JPEG %6/%7，OFA %8/%9；例如两个 +me 实例）</translation>
    </message>
    <message>
        <source>the layout search gave up after %1 attempts; give explicit starts (PROFILE@START) for some instances</source>
        <translation>布局搜索在 %1 次尝试后放弃；请为部分实例指定明确的起始位置（PROFILE@START）</translation>
    </message>
    <message>
        <source>check 1 (allowed start) failed: %1 cannot start at slice %2; %3 may start only at {%4}</source>
        <translation>检查 1（允许的起始位置）未通过：%1 不能从切片 %2 开始；%3 只能从 {%4} 开始</translation>
    </message>
    <message>
        <source>@%1 blocked by %2</source>
        <translation>@%1 受阻于 %2</translation>
    </message>
    <message>
        <source>count/engine limits</source>
        <translation>数量/引擎限制</translation>
    </message>
    <message>
        <source>%1 (busy)</source>
        <translation>%1（使用中）</translation>
    </message>
    <message>
        <source>nothing</source>
        <translation>无</translation>
    </message>
    <message>
        <source>no valid layout holds the target: after placing %1, %2 fits nowhere (%3)</source>
        <translation>没有有效布局能容纳目标（已放置：%1）：%2 无处可放（%3）</translation>
    </message>
    <message>
        <source>node failure</source>
        <translation>节点故障</translation>
    </message>
    <message>
        <source>Xid %1 on GPU %2</source>
        <translation>GPU %2 上发生 Xid %1</translation>
    </message>
    <message>
        <source>MIG repartition of GPU %1</source>
        <translation>GPU %1 的 MIG 重新分区</translation>
    </message>
    <message>
        <source>not valid UTF-8</source>
        <translation>不是有效的 UTF-8</translation>
    </message>
    <message>
        <source>contains a control character</source>
        <translation>包含控制字符</translation>
    </message>
    <message>
        <source>%1 characters long; at most %2 allowed</source>
        <translation>长度为 %1 个字符；最多允许 %2 个</translation>
    </message>
    <message>
        <source>%1 items; at most %2 allowed</source>
        <translation>%1 项；最多允许 %2 项</translation>
    </message>
    <message>
        <source>none of the job&apos;s GPU models (%1) is in this cluster (it has %2)</source>
        <translation>作业的 GPU 型号（%1）均不在此集群中（集群有 %2）</translation>
    </message>
    <message>
        <source>no MIG GPU the job may use offers profile %1 (their profiles: %2)</source>
        <translation>作业可用的 MIG GPU 均不提供配置 %1（它们的配置：%2）</translation>
    </message>
    <message>
        <source>the job asks for MIG profile %1, but no GPU it may use is in MIG mode</source>
        <translation>作业请求 MIG 配置 %1，但它可用的 GPU 均未处于 MIG 模式</translation>
    </message>
    <message>
        <source>no pool %1 in this cluster (its pools: %2)</source>
        <translation>此集群中没有资源池 %1（现有资源池：%2）</translation>
    </message>
    <message>
        <source>can never run on this cluster, even empty with every node up: %1</source>
        <translation>即使集群为空且所有节点都在线，也永远无法在此集群上运行：%1</translation>
    </message>
    <message>
        <source>node %1 undrained, but still out: %2</source>
        <translation>节点 %1 已取消排空，但仍不可用：%2</translation>
    </message>
    <message>
        <source>give a command or a batch script, not both</source>
        <translation>请提供命令或批处理脚本，不能同时提供两者</translation>
    </message>
    <message>
        <source>the time limit cannot be negative</source>
        <translation>时间限制不能为负数</translation>
    </message>
    <message>
        <source>no GPU runs MPS</source>
        <translation>没有运行 MPS 的 GPU</translation>
    </message>
    <message>
        <source>no MPS server with room</source>
        <translation>没有有空间的 MPS 服务器</translation>
    </message>
    <message>
        <source>MPS tasks of %1 % active threads</source>
        <translation>MPS 任务（每个 %1 % 活动线程）</translation>
    </message>
    <message>
        <source>GPU %1 runs MPS clients of team %2; team %3 may not share it</source>
        <translation>GPU %1 运行团队 %2 的 MPS 客户端；团队 %3 不得共享它</translation>
    </message>
    <message>
        <source>GPU %1 runs MPS clients of user %2; user %3 may not share it</source>
        <translation>GPU %1 运行用户 %2 的 MPS 客户端；用户 %3 不得共享它</translation>
    </message>
    <message>
        <source>GPU %1 shares MPS by user, and the job names no user</source>
        <translation>GPU %1 按用户共享 MPS，而该作业未指定用户</translation>
    </message>
    <message>
        <source>GPU %1 has all %2 MPS clients its architecture allows</source>
        <translation>GPU %1 已有其架构允许的全部 %2 个 MPS 客户端</translation>
    </message>
    <message>
        <source>GPU %1 has %2 % of its MPS active threads left; the task asks %3 %</source>
        <translation>GPU %1 还剩 %2 % 的 MPS 活动线程；该任务需要 %3 %</translation>
    </message>
    <message>
        <source>the MPS memory limit does not fit: GPU %1 has %2 MiB unpinned; the task pins %3 MiB</source>
        <translation>MPS 内存上限放不下：GPU %1 还有 %2 MiB 未固定；该任务固定 %3 MiB</translation>
    </message>
    <message>
        <source>GPU %1 does not run MPS</source>
        <translation>GPU %1 未运行 MPS</translation>
    </message>
    <message>
        <source>GPU %1 is on a node that is not up</source>
        <translation>GPU %1 所在节点未就绪</translation>
    </message>
    <message>
        <source>the job already has a client on GPU %1</source>
        <translation>该作业已在 GPU %1 上有一个客户端</translation>
    </message>
    <message>
        <source>node %1 serves MPS on GPU %2 only (one GPU per node at a time, Slurm&apos;s one_sharing); %3</source>
        <translation>节点 %1 仅在 GPU %2 上提供 MPS（每个节点同一时间仅一个 GPU，Slurm 的 one_sharing）；%3</translation>
    </message>
    <message>
        <source>the client may join GPU %1</source>
        <translation>该客户端可以加入 GPU %1</translation>
    </message>
    <message>
        <source>no GPU runs MPS in the job&apos;s pool and models</source>
        <translation>作业的池和型号中没有运行 MPS 的 GPU</translation>
    </message>
    <message>
        <source>an MPS active-thread percentage is 1 to 100, not %1</source>
        <translation>MPS 活动线程百分比应为 1 到 100，而不是 %1</translation>
    </message>
    <message>
        <source>an MPS request needs a pinned device memory limit: MPS does not isolate GPU memory</source>
        <translation>MPS 请求需要固定设备内存上限：MPS 不隔离 GPU 内存</translation>
    </message>
    <message>
        <source>No mode could run on this cluster.</source>
        <translation>此集群上没有任何模式可以运行。</translation>
    </message>
    <message>
        <source>No mode meets the wait targets on all %1 GPUs.</source>
        <translation>在全部 %1 个 GPU 上，没有任何模式满足等待目标。</translation>
    </message>
    <message>
        <source>%1 meets the wait targets on all %2 GPUs (the fewest GPUs needed were not searched for).</source>
        <translation>%1 在全部 %2 个 GPU 上满足等待目标（未搜索所需的最少 GPU 数）。</translation>
    </message>
    <message>
        <source>%1 meet the wait targets on all %2 GPUs (the fewest GPUs needed were not searched for).</source>
        <translation>%1 在全部 %2 个 GPU 上均满足等待目标（未搜索所需的最少 GPU 数）。</translation>
    </message>
    <message>
        <source>No mode meets the wait targets even on all %1 GPUs.</source>
        <translation>即使使用全部 %1 个 GPU，也没有任何模式满足等待目标。</translation>
    </message>
    <message>
        <source>%1 meets the wait targets with the fewest GPUs: %2 of %3.</source>
        <translation>%1 以最少的 GPU 满足等待目标：%3 个中的 %2 个。</translation>
    </message>
    <message>
        <source>%1 tie for the wait targets with the fewest GPUs: %2 of %3.</source>
        <translation>%1 并列以最少的 GPU 满足等待目标：%3 个中的 %2 个。</translation>
    </message>
    <message>
        <source>%1 needs %2.</source>
        <translation>%1 需要 %2 个。</translation>
    </message>
    <message>
        <source>%1 misses them even on all %2.</source>
        <translation>%1 即使使用全部 %2 个也无法满足。</translation>
    </message>
    <message>
        <source>On the whole cluster the GPUs are busiest under %1 (%2 of capacity), and the least capacity is stranded under %3 (%4 GPUs on average).</source>
        <translation>在整个集群上，%1 下 GPU 最繁忙（占容量的 %2），%3 下受困闲置的容量最少（平均 %4 个 GPU）。</translation>
    </message>
    <message>
        <source>Time-slicing and MPS put jobs on one GPU without fault isolation (one job&apos;s fault or memory overrun can end the others): %1 shared a GPU with another job.</source>
        <translation>时间分片和 MPS 将作业放在同一个 GPU 上且不隔离故障（一个作业的故障或内存溢出可能终止其他作业）：%1 与其他作业共享了 GPU。</translation>
    </message>
    <message>
        <source>%1 %2 of %3 jobs</source>
        <translation>%1 %3 个作业中的 %2 个</translation>
    </message>
    <message>
        <source>MIG and whole GPUs isolate every job.</source>
        <translation>MIG 和整块 GPU 会隔离每个作业。</translation>
    </message>
    <message>
        <source>Search for the GPUs needed (without --no-search) to compare the modes&apos; cost.</source>
        <translation>请搜索所需的 GPU 数（不使用 --no-search），以比较各模式的成本。</translation>
    </message>
    <message>
        <source>Add GPUs, or relax the targets, before choosing a mode.</source>
        <translation>请先增加 GPU 或放宽目标，再选择模式。</translation>
    </message>
    <message>
        <source>Recommendation: %1: no mode needs fewer GPUs, and it isolates every job.</source>
        <translation>建议：%1：没有模式需要更少的 GPU，且它隔离每个作业。</translation>
    </message>
    <message>
        <source>Recommendation: %1, if the jobs sharing a GPU may share its faults; no isolating mode meets the targets on this cluster.</source>
        <translation>建议：%1（前提是共享 GPU 的作业可以共担其故障）；在此集群上没有隔离模式满足目标。</translation>
    </message>
    <message>
        <source>Recommendation: %1: it needs %2 GPUs more than %3 (%4) and isolates every job.</source>
        <translation>建议：%1：它比 %3 多需要 %2 个 GPU（%4），并隔离每个作业。</translation>
    </message>
    <message>
        <source>Recommendation: %1 saves %2 GPUs against %3 (%4), if the jobs sharing a GPU may share its faults; otherwise %3.</source>
        <translation>建议：%1 比 %3 节省 %2 个 GPU（%4），前提是共享 GPU 的作业可以共担其故障；否则选择 %3。</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::ClusterTreeModel</name>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>GPU model</source>
        <translation>GPU 型号</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Pool</source>
        <translation>资源池</translation>
    </message>
    <message>
        <source>Detail</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>exclusive</source>
        <translation>独占</translation>
    </message>
    <message>
        <source>time-sliced x%1</source>
        <translation>时间切片 x%1</translation>
    </message>
    <message>
        <source>MIG %1, MPS in the instances</source>
        <translation>MIG %1，实例内运行 MPS</translation>
    </message>
    <message>
        <source>MPS, thread budget %1%</source>
        <translation>MPS，线程预算 %1%</translation>
    </message>
    <message>
        <source>MIG %1</source>
        <translation>MIG %1</translation>
    </message>
    <message>
        <source>spine, 1 leaf</source>
        <translation>脊交换机，1 个叶交换机</translation>
    </message>
    <message>
        <source>spine, %1 leafs</source>
        <translation>脊交换机，%1 个叶交换机</translation>
    </message>
    <message>
        <source>leaf, 1 node</source>
        <translation>叶交换机，1 个节点</translation>
    </message>
    <message>
        <source>leaf, %1 nodes</source>
        <translation>叶交换机，%1 个节点</translation>
    </message>
    <message>
        <source>template %1</source>
        <translation>模板 %1</translation>
    </message>
    <message>
        <source>MPS, thread budget %1%, one GPU per node at a time</source>
        <translation>MPS，线程预算 %1%，每个节点同一时间仅一个 GPU</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::GanttWidget</name>
    <message>
        <source>planned: %1</source>
        <translation>计划中：%1</translation>
    </message>
    <message>
        <source>Job %1 %2
Team %3, %4 task(s), %5 GPUs</source>
        <translation>作业 %1 %2
团队 %3，%4 个任务，%5 个 GPU</translation>
    </message>
    <message>
        <source>
Planned start %1 (in %2)</source>
        <translation>
计划开始于 %1（%2 后）</translation>
    </message>
    <message>
        <source>
Started %1</source>
        <translation>
开始于 %1</translation>
    </message>
    <message>
        <source>, estimated runtime %1</source>
        <translation>，预计运行时间 %1</translation>
    </message>
    <message>
        <source>, no runtime estimate</source>
        <translation>，无运行时间估计</translation>
    </message>
    <message>
        <source>now</source>
        <translation>现在</translation>
    </message>
    <message>
        <source>Backfill reservation for job %1 %2
Team %3: its planned start, held on these GPUs</source>
        <translation>作业 %1 %2 的回填预留
团队 %3：其计划启动，在这些 GPU 上保留</translation>
    </message>
    <message>
        <source>Reservation %1, held for team %2</source>
        <translation>预留 %1，为团队 %2 保留</translation>
    </message>
    <message>
        <source>Maintenance reservation %1</source>
        <translation>维护预留 %1</translation>
    </message>
    <message>
        <source>
GPUs %1 on %2</source>
        <translation>
%2 上的 GPU %1</translation>
    </message>
    <message>
        <source>
From %1 (in %2)</source>
        <translation>
从 %1 开始（%2 后）</translation>
    </message>
    <message>
        <source>
Since %1</source>
        <translation>
自 %1 起</translation>
    </message>
    <message>
        <source> until %1</source>
        <translation>，直到 %1</translation>
    </message>
    <message>
        <source>, open-ended</source>
        <translation>,无结束时间</translation>
    </message>
    <message>
        <source>No running jobs, reservations or planned starts</source>
        <translation>没有运行中的作业、预留或计划启动</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::HeatmapWidget</name>
    <message>
        <source>%1%</source>
        <translation>%1%</translation>
    </message>
    <message>
        <source>up</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>draining</source>
        <translation>排空中</translation>
    </message>
    <message>
        <source>drained</source>
        <translation>已排空</translation>
    </message>
    <message>
        <source>down</source>
        <translation>离线</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Allocation</source>
        <translation>分配</translation>
    </message>
    <message>
        <source>Owning team</source>
        <translation>所属团队</translation>
    </message>
    <message>
        <source>GPU utilization</source>
        <translation>GPU 利用率</translation>
    </message>
    <message>
        <source>SM active</source>
        <translation>SM 活跃度</translation>
    </message>
    <message>
        <source>Allocated but idle</source>
        <translation>已分配但闲置</translation>
    </message>
    <message>
        <source>NVLink %1</source>
        <translation>NVLink %1</translation>
    </message>
    <message>
        <source>job %1</source>
        <translation>作业 %1</translation>
    </message>
    <message>
        <source>free</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>no telemetry</source>
        <translation>无遥测数据</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;%2 GPUs · pool %3 · state %4</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;%2 个 GPU · 资源池 %3 · 状态 %4</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; GPU %2 · %3</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; GPU %2 · %3</translation>
    </message>
    <message>
        <source>leaf %1 · spine %2 · state %3</source>
        <translation>叶交换机 %1 · 脊交换机 %2 · 状态 %3</translation>
    </message>
    <message>
        <source>NVLink domain %1</source>
        <translation>NVLink 域 %1</translation>
    </message>
    <message>
        <source>allocated %1 · utilization %2 · SM active %3</source>
        <translation>已分配 %1 · 利用率 %2 · SM 活跃度 %3</translation>
    </message>
    <message>
        <source>MIG layout %1</source>
        <translation>MIG 布局 %1</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>闲置</translation>
    </message>
    <message>
        <source>%1 GPU</source>
        <translation>%1 个 GPU</translation>
    </message>
    <message>
        <source>job %1 · team %2 · %3</source>
        <translation>作业 %1 · 团队 %2 · %3</translation>
    </message>
    <message>
        <source>shared by one team</source>
        <translation>由一个团队共享</translation>
    </message>
    <message>
        <source>shared by one user</source>
        <translation>由一个用户共享</translation>
    </message>
    <message>
        <source>shared by anyone</source>
        <translation>任何人可共享</translation>
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
        <translation>MPS 服务器</translation>
    </message>
    <message>
        <source>MPS server of instance @%1</source>
        <translation>实例 @%1 的 MPS 服务器</translation>
    </message>
    <message>
        <source>%1: %2 of %3 clients · %4% of %5% active threads · %6 MiB pinned · %7</source>
        <translation>%1：%2/%3 个客户端 · 活动线程 %4%/%5% · 已固定 %6 MiB · %7</translation>
    </message>
    <message>
        <source>MPS %1% active threads, %2 MiB pinned</source>
        <translation>MPS %1% 活动线程，已固定 %2 MiB</translation>
    </message>
    <message>
        <source>instance %1, slices %2-%3: %4</source>
        <translation>实例 %1，切片 %2-%3：%4</translation>
    </message>
    <message>
        <source>Tensor active</source>
        <translation>Tensor 活跃度</translation>
    </message>
    <message>
        <source>Memory used</source>
        <translation>显存占用</translation>
    </message>
    <message>
        <source>Power</source>
        <translation>功耗</translation>
    </message>
    <message>
        <source>tensor active %1 · memory used %2 · power %3</source>
        <translation>Tensor 活跃度 %1 · 显存占用 %2 · 功耗 %3</translation>
    </message>
    <message>
        <source>node %1 is not in the cluster</source>
        <translation>节点 %1 不在集群中</translation>
    </message>
    <message>
        <source>node %1 is %2</source>
        <translation>节点 %1 为%2</translation>
    </message>
    <message>
        <source>GPU %1/%2 is held by job %3</source>
        <translation>GPU %1/%2 被作业 %3 占用</translation>
    </message>
    <message>
        <source>every GPU of %1 is in use</source>
        <translation>%1 的所有 GPU 均已占用</translation>
    </message>
    <message>
        <source>the engine would keep it waiting (its request, quota or queue)</source>
        <translation>引擎会让它继续等待（其请求、配额或队列）</translation>
    </message>
    <message>
        <source>Refused: %1</source>
        <translation>已拒绝：%1</translation>
    </message>
    <message>
        <source>Would not start there now: %1</source>
        <translation>现在不会在此处启动：%1</translation>
    </message>
    <message>
        <source>Would start now</source>
        <translation>现在即可启动</translation>
    </message>
    <message>
        <source>Would start on %1</source>
        <translation>将在 %1 上启动</translation>
    </message>
    <message numerus="yes">
        <source>preempting %n job(s), %1 GPU-hours lost</source>
        <translation>
            <numerusform>抢占 %n 个作业，损失 %1 GPU 小时</numerusform>
        </translation>
    </message>
    <message>
        <source>Asking the engine…</source>
        <translation>正在询问引擎…</translation>
    </message>
    <message>
        <source>GPUs in %1 NUMA zones</source>
        <translation>GPU 分布在 %1 个 NUMA 区域</translation>
    </message>
    <message>
        <source>NUMA zone %1</source>
        <translation>NUMA 区域 %1</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Fragmentation (free, unusable for pending work)</source>
        <translation>碎片化（空闲但无法用于等待中的工作）</translation>
    </message>
    <message>
        <source>%1 °C</source>
        <translation>%1 °C</translation>
    </message>
    <message>
        <source>temperature %1</source>
        <translation>温度 %1</translation>
    </message>
    <message>
        <source>%1 free but unusable for the pending work</source>
        <translation>%1 空闲但无法用于等待中的工作</translation>
    </message>
    <message>
        <source>Health (GPU faults, node state)</source>
        <translation>健康状况（GPU 故障、节点状态）</translation>
    </message>
    <message>
        <source>GPU fault (Xid)</source>
        <translation>GPU 故障（Xid）</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message numerus="yes">
        <source>Xid %1: %2, for %n min</source>
        <translation>
            <numerusform>Xid %1：%2，已持续 %n 分钟</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>repair expected in %n min</source>
        <translation>
            <numerusform>预计 %n 分钟后修复</numerusform>
        </translation>
    </message>
    <message>
        <source>GPU fault</source>
        <translation>GPU 故障</translation>
    </message>
    <message>
        <source>Holds:</source>
        <translation>保留方：</translation>
    </message>
    <message>
        <source>one GPU per node at a time</source>
        <translation>每个节点同一时间仅一个 GPU</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::IdleGpuModel</name>
    <message>
        <source>d%1 %2</source>
        <translation>第 %1 天 %2</translation>
    </message>
    <message>
        <source>n/a</source>
        <translation>不可用</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Jobs</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>Team</source>
        <translation>团队</translation>
    </message>
    <message>
        <source>Allocated</source>
        <translation>已分配</translation>
    </message>
    <message>
        <source>Util</source>
        <translation>利用率</translation>
    </message>
    <message>
        <source>SM active</source>
        <translation>SM 活跃度</translation>
    </message>
    <message>
        <source>Idle since</source>
        <translation>闲置起始</translation>
    </message>
    <message>
        <source>Idle for</source>
        <translation>闲置时长</translation>
    </message>
    <message>
        <source>%1s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1m</source>
        <translation>%1 分钟</translation>
    </message>
    <message>
        <source>%1h %2m</source>
        <translation>%1 小时 %2 分</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::IdleGpuPanel</name>
    <message>
        <source>Preempt job</source>
        <translation>抢占作业</translation>
    </message>
    <message>
        <source>Send the selected GPUs&apos; jobs back to the queue; work since their last checkpoint is lost</source>
        <translation>将所选 GPU 上的作业送回队列；自上次检查点以来的工作将丢失</translation>
    </message>
    <message>
        <source>Cancel job</source>
        <translation>取消作业</translation>
    </message>
    <message>
        <source>End the selected GPUs&apos; jobs</source>
        <translation>结束所选 GPU 上的作业</translation>
    </message>
    <message>
        <source> %</source>
        <translation> %</translation>
    </message>
    <message>
        <source>An allocated GPU counts as idle while its utilization is below this</source>
        <translation>已分配的 GPU 在利用率低于此值时视为空闲</translation>
    </message>
    <message>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <source>List a GPU once it has been idle this long (engine time)</source>
        <translation>GPU 空闲达到此时长后列出（引擎时间）</translation>
    </message>
    <message>
        <source>Idle below</source>
        <translation>空闲阈值</translation>
    </message>
    <message>
        <source>for at least</source>
        <translation>持续至少</translation>
    </message>
    <message>
        <source>Preempt this job holding idle GPUs?</source>
        <translation>抢占这个占用空闲 GPU 的作业？</translation>
    </message>
    <message>
        <source>Cancel this job holding idle GPUs?</source>
        <translation>取消这个占用空闲 GPU 的作业？</translation>
    </message>
    <message>
        <source>Preempt these %1 jobs holding idle GPUs?</source>
        <translation>抢占这 %1 个占用空闲 GPU 的作业？</translation>
    </message>
    <message>
        <source>Cancel these %1 jobs holding idle GPUs?</source>
        <translation>取消这 %1 个占用空闲 GPU 的作业？</translation>
    </message>
    <message>
        <source>no team</source>
        <translation>无团队</translation>
    </message>
    <message>
        <source>Job %1 of team %2: %3 GPU-hours idle on 1 GPU</source>
        <translation>团队 %2 的作业 %1：在 1 个 GPU 上空闲 %3 GPU 小时</translation>
    </message>
    <message>
        <source>Job %1 of team %2: %3 GPU-hours idle on %4 GPUs</source>
        <translation>团队 %2 的作业 %1：在 %4 个 GPU 上空闲 %3 GPU 小时</translation>
    </message>
    <message>
        <source>Preempted jobs go back to the queue and lose the work done since their last checkpoint.</source>
        <translation>被抢占的作业会回到队列，并丢失自上次检查点以来完成的工作。</translation>
    </message>
    <message>
        <source>Cancelled jobs end and do not come back.</source>
        <translation>被取消的作业会结束，不会再返回。</translation>
    </message>
    <message>
        <source>Preempt idle jobs</source>
        <translation>抢占空闲作业</translation>
    </message>
    <message>
        <source>Cancel idle jobs</source>
        <translation>取消空闲作业</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::JobGroupProxy</name>
    <message>
        <source>(no team)</source>
        <translation>（无团队）</translation>
    </message>
    <message>
        <source>1 job</source>
        <translation>1 个作业</translation>
    </message>
    <message>
        <source>%1 jobs</source>
        <translation>%1 个作业</translation>
    </message>
    <message>
        <source>%1 — %2 · %3 GPUs requested</source>
        <translation>%1 — %2 · 请求 %3 个 GPU</translation>
    </message>
    <message>
        <source>%1 — %2 · %3 GPUs requested · %4 held</source>
        <translation>%1 — %2 · 请求 %3 个 GPU · 占用 %4 个</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::JobInspector</name>
    <message>
        <source>Hold</source>
        <translation>挂起</translation>
    </message>
    <message>
        <source>Release</source>
        <translation>释放</translation>
    </message>
    <message>
        <source>Preempt</source>
        <translation>抢占</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Priority class to set</source>
        <translation>要设置的优先级类别</translation>
    </message>
    <message>
        <source>Set priority</source>
        <translation>设置优先级</translation>
    </message>
    <message>
        <source>No job selected</source>
        <translation>未选择作业</translation>
    </message>
    <message>
        <source>Placed on %1</source>
        <translation>已放置于 %1</translation>
    </message>
    <message>
        <source>Job %1 — %2</source>
        <translation>作业 %1 — %2</translation>
    </message>
    <message>
        <source>%1 of %2 nodes fit</source>
        <translation>%2 个节点中有 %1 个满足条件</translation>
    </message>
    <message>
        <source>Queue position %1 of %2</source>
        <translation>队列位置 %1 / %2</translation>
    </message>
    <message>
        <source>ETA at %1 s</source>
        <translation>预计在第 %1 秒开始</translation>
    </message>
    <message>
        <source>ETA now</source>
        <translation>预计立即开始</translation>
    </message>
    <message>
        <source>ETA in %1</source>
        <translation>预计 %1 后开始</translation>
    </message>
    <message>
        <source>no ETA</source>
        <translation>无法预计开始时间</translation>
    </message>
    <message>
        <source>Waiting for jobs %1</source>
        <translation>等待作业 %1</translation>
    </message>
    <message>
        <source>Teams in the way: %1</source>
        <translation>造成阻塞的团队：%1</translation>
    </message>
    <message>
        <source>Quota</source>
        <translation>配额</translation>
    </message>
    <message>
        <source>Repartition</source>
        <translation>重新分区</translation>
    </message>
    <message>
        <source>Jobs end</source>
        <translation>作业结束</translation>
    </message>
    <message>
        <source>Relax topology</source>
        <translation>放宽拓扑约束</translation>
    </message>
    <message>
        <source>Preemption</source>
        <translation>抢占</translation>
    </message>
    <message>
        <source>What would help:</source>
        <translation>可行的办法：</translation>
    </message>
    <message>
        <source>Slurm job %1: %2</source>
        <translation>Slurm 作业 %1：%2</translation>
    </message>
    <message>
        <source>MPS limits per task: %1</source>
        <translation>每个任务的 MPS 限制：%1</translation>
    </message>
    <message>
        <source>Slurm differs from Tessera&apos;s state (%1)</source>
        <translation>Slurm 与 Tessera 的状态不一致（%1）</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::JobQueueView</name>
    <message>
        <source>Group by team</source>
        <translation>按团队分组</translation>
    </message>
    <message>
        <source>Show the jobs under one row per team, with its GPUs</source>
        <translation>按团队分行显示作业及其 GPU</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::JobTableModel</name>
    <message>
        <source>training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>inference</source>
        <translation>推理</translation>
    </message>
    <message>
        <source>interactive</source>
        <translation>交互式</translation>
    </message>
    <message>
        <source>batch</source>
        <translation>批处理</translation>
    </message>
    <message>
        <source>%1s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1m</source>
        <translation>%1 分钟</translation>
    </message>
    <message>
        <source>%1h %2m</source>
        <translation>%1 小时 %2 分</translation>
    </message>
    <message>
        <source>%1d %2h</source>
        <translation>%1 天 %2 小时</translation>
    </message>
    <message>
        <source>no GPU</source>
        <translation>无 GPU</translation>
    </message>
    <message>
        <source>%1 GPU</source>
        <translation>%1 个 GPU</translation>
    </message>
    <message>
        <source>%1x %2</source>
        <translation>%1 × %2</translation>
    </message>
    <message>
        <source>now</source>
        <translation>现在</translation>
    </message>
    <message>
        <source>in %1</source>
        <translation>%1 后</translation>
    </message>
    <message>
        <source>Blocked by: %1</source>
        <translation>受阻于：%1</translation>
    </message>
    <message>
        <source>Job</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Team</source>
        <translation>团队</translation>
    </message>
    <message>
        <source>Priority</source>
        <translation>优先级</translation>
    </message>
    <message>
        <source>Workload</source>
        <translation>工作负载</translation>
    </message>
    <message>
        <source>Tasks</source>
        <translation>任务数</translation>
    </message>
    <message>
        <source>Request</source>
        <translation>资源请求</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Wait</source>
        <translation>等待时间</translation>
    </message>
    <message>
        <source>Queue</source>
        <translation>队列位置</translation>
    </message>
    <message>
        <source>ETA</source>
        <translation>预计开始</translation>
    </message>
    <message>
        <source>Reason / placement</source>
        <translation>原因 / 放置位置</translation>
    </message>
    <message>
        <source>Slurm job</source>
        <translation>Slurm 作业</translation>
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
        <translation>%1 正在使用（已固定）</translation>
    </message>
    <message>
        <source>Remove %1</source>
        <translation>移除 %1</translation>
    </message>
    <message>
        <source>Drag a profile onto a slice position; double-click to add it where it leaves the least fragmentation</source>
        <translation>将配置文件拖到切片位置；双击则将其添加到产生碎片最少的位置</translation>
    </message>
    <message>
        <source>Dry-run result</source>
        <translation>试运行结果</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>重置</translation>
    </message>
    <message>
        <source>Dry run</source>
        <translation>试运行</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <source>%1 (%2) is not a MIG-capable GPU model</source>
        <translation>%1（%2）不是支持 MIG 的 GPU 型号</translation>
    </message>
    <message>
        <source>%1 is not in MIG mode</source>
        <translation>%1 未处于 MIG 模式</translation>
    </message>
    <message>
        <source>the layout of %1 cannot be read: %2</source>
        <translation>无法读取 %1 的布局：%2</translation>
    </message>
    <message>
        <source>no MIG GPU loaded</source>
        <translation>未加载 MIG GPU</translation>
    </message>
    <message>
        <source>%1: %2 memory slice(s), %3 compute slice(s), starts {%4}, at most %5 per GPU</source>
        <translation>%1：%2 个显存切片，%3 个计算切片，起始位置 {%4}，每个 GPU 最多 %5 个</translation>
    </message>
    <message>
        <source>drop %1 on a memory slice position (0-%2)</source>
        <translation>请将 %1 放到显存切片位置（0-%2）</translation>
    </message>
    <message>
        <source>%1 fits nowhere next to the instances of %2</source>
        <translation>%1 无法与 %2 的现有实例共存</translation>
    </message>
    <message>
        <source>no instance at memory slice %1</source>
        <translation>显存切片 %1 处没有实例</translation>
    </message>
    <message>
        <source>move it onto a memory slice position (0-%1)</source>
        <translation>请将其移到显存切片位置（0-%1）</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>闲置</translation>
    </message>
    <message>
        <source>job %1</source>
        <translation>作业 %1</translation>
    </message>
    <message>
        <source>busy</source>
        <translation>使用中</translation>
    </message>
    <message>
        <source>%1 is busy (job %2) and pinned: drain it before repartitioning</source>
        <translation>%1 正在使用（作业 %2）且已固定：重新分区前请先排空</translation>
    </message>
    <message>
        <source>%1 is busy and pinned: drain it before repartitioning</source>
        <translation>%1 正在使用且已固定：重新分区前请先排空</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>No MIG GPU selected</source>
        <translation>未选择 MIG GPU</translation>
    </message>
    <message>
        <source>Layout: %1</source>
        <translation>布局：%1</translation>
    </message>
    <message>
        <source>empty</source>
        <translation>空</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::MigFleetSummary</name>
    <message>
        <source>%1 on %2 MIG GPU(s) of model %3</source>
        <translation>%3 型号的 %2 个 MIG GPU 上的 %1</translation>
    </message>
    <message>
        <source>GPU model</source>
        <translation>GPU 型号</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>配置文件</translation>
    </message>
    <message>
        <source>Idle</source>
        <translation>闲置</translation>
    </message>
    <message>
        <source>Can add now</source>
        <translation>当前可新增</translation>
    </message>
    <message>
        <source>Available now</source>
        <translation>当前可用</translation>
    </message>
    <message>
        <source>After repartition</source>
        <translation>重新分区后</translation>
    </message>
    <message>
        <source>Existing instances of the profile without work</source>
        <translation>该配置文件下当前没有负载的现有实例</translation>
    </message>
    <message>
        <source>New instances of the profile that can still be created, summed over GPUs, without touching any existing instance</source>
        <translation>在不改动任何现有实例的前提下，该配置文件还能新建的实例数（所有 GPU 合计）</translation>
    </message>
    <message>
        <source>Idle plus can add now: jobs of this profile that could start now</source>
        <translation>闲置数加当前可新增数：该配置文件现在即可启动的作业数</translation>
    </message>
    <message>
        <source>The same count once every GPU is repartitioned as suggested for the demand (busy instances kept)</source>
        <translation>按需求建议对每个 GPU 重新分区后的相同数量（保留使用中的实例）</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::MigMapWidget</name>
    <message>
        <source>%1: layout unreadable: %2</source>
        <translation>%1：布局无法读取：%2</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>%1 on %2, %3</source>
        <translation>%2 上的 %1，%3</translation>
    </message>
    <message>
        <source>busy: job %1</source>
        <translation>使用中：作业 %1</translation>
    </message>
    <message>
        <source>(team %1)</source>
        <translation>（团队 %1）</translation>
    </message>
    <message>
        <source>busy</source>
        <translation>使用中</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>闲置</translation>
    </message>
    <message>
        <source>%1 slice %2: free but stranded: no profile in demand can be placed over it</source>
        <translation>%1 切片 %2：空闲但已成碎片：没有任何所需的配置文件能放置在其上</translation>
    </message>
    <message>
        <source>%1 slice %2: free</source>
        <translation>%1 切片 %2：空闲</translation>
    </message>
    <message>
        <source>unreadable</source>
        <translation>无法读取</translation>
    </message>
    <message>
        <source>%1 stranded</source>
        <translation>%1 个碎片</translation>
    </message>
    <message>
        <source>job %1</source>
        <translation>作业 %1</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::NodeAdmissionModel</name>
    <message>
        <source>awaiting admission</source>
        <translation>等待接纳</translation>
    </message>
    <message>
        <source>admitted, joins at its next report</source>
        <translation>已接纳，下次报告时加入</translation>
    </message>
    <message>
        <source>in the cluster model</source>
        <translation>在集群模型中</translation>
    </message>
    <message>
        <source>Admit it (admin token): %1</source>
        <translation>接纳（管理员令牌）：%1</translation>
    </message>
    <message>
        <source>Warnings:</source>
        <translation>警告：</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Warnings</source>
        <translation>警告</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::NodeAdmissionPanel</name>
    <message>
        <source>No node awaits admission.</source>
        <translation>没有等待接纳的节点。</translation>
    </message>
    <message>
        <source>1 node awaits admission.</source>
        <translation>1 个节点等待接纳。</translation>
    </message>
    <message>
        <source>%1 nodes await admission.</source>
        <translation>%1 个节点等待接纳。</translation>
    </message>
    <message>
        <source>Admit one with “tessera ctl node admit NODE” (an admin&apos;s token).</source>
        <translation>用“tessera ctl node admit NODE”接纳（需要管理员令牌）。</translation>
    </message>
    <message>
        <source>The nodes&apos; own reports have warnings (hover a row).</source>
        <translation>节点自身的报告中有警告（将鼠标悬停在行上查看）。</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::NodeHolds</name>
    <message>
        <source>operator</source>
        <translation>操作员</translation>
    </message>
    <message>
        <source>node failure</source>
        <translation>节点故障</translation>
    </message>
    <message>
        <source>GPU fault</source>
        <translation>GPU 故障</translation>
    </message>
    <message>
        <source>MIG reconfiguration</source>
        <translation>MIG 重新配置</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>down</source>
        <translation>离线</translation>
    </message>
    <message>
        <source>draining</source>
        <translation>排空中</translation>
    </message>
    <message>
        <source>node inventory</source>
        <translation>节点清单</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::OverviewModel</name>
    <message>
        <source>%1 GPUs</source>
        <translation>%1 个 GPU</translation>
    </message>
    <message>
        <source>%1 GPUs (%2 %)</source>
        <translation>%1 个 GPU（%2 %）</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Allocated</source>
        <translation>已分配</translation>
    </message>
    <message>
        <source>Busy</source>
        <translation>忙碌</translation>
    </message>
    <message>
        <source>no telemetry</source>
        <translation>无遥测数据</translation>
    </message>
    <message>
        <source>SM-active</source>
        <translation>SM 活跃</translation>
    </message>
    <message>
        <source>Allocated but idle (gap)</source>
        <translation>已分配但空闲（差距）</translation>
    </message>
    <message>
        <source>Free on nodes down or draining</source>
        <translation>宕机或排空节点上的空闲 GPU</translation>
    </message>
    <message>
        <source>Free on faulted GPUs</source>
        <translation>故障 GPU 上的空闲容量</translation>
    </message>
    <message>
        <source>Fragmented (free, no pending request fits)</source>
        <translation>碎片化（空闲，但没有等待中的请求能放下）</translation>
    </message>
    <message>
        <source>Job %1 (%2)</source>
        <translation>作业 %1（%2）</translation>
    </message>
    <message>
        <source>GPU faults</source>
        <translation>GPU 故障</translation>
    </message>
    <message>
        <source>Nodes down</source>
        <translation>宕机节点</translation>
    </message>
    <message>
        <source>Nodes draining or drained</source>
        <translation>排空中或已排空的节点</translation>
    </message>
    <message>
        <source>Executor</source>
        <translation>执行器</translation>
    </message>
    <message>
        <source>none (the engine&apos;s own simulation)</source>
        <translation>无（引擎自身的模拟）</translation>
    </message>
    <message>
        <source>%1 ago</source>
        <translation>%1 前</translation>
    </message>
    <message>
        <source>never</source>
        <translation>从未</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Last sync</source>
        <translation>上次同步</translation>
    </message>
    <message>
        <source>Capacity</source>
        <translation>容量</translation>
    </message>
    <message>
        <source>Pending jobs by reason</source>
        <translation>按原因分类的等待作业</translation>
    </message>
    <message>
        <source>Free GPUs no job can use</source>
        <translation>没有作业能用的空闲 GPU</translation>
    </message>
    <message>
        <source>Largest idle allocations</source>
        <translation>最大的空闲分配</translation>
    </message>
    <message>
        <source>Faults and nodes out</source>
        <translation>故障与停用节点</translation>
    </message>
    <message>
        <source>What</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>Now</source>
        <translation>当前</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::ReportExportDialog</name>
    <message>
        <source> h</source>
        <translation> 小时</translation>
    </message>
    <message>
        <source>Export report</source>
        <translation>导出报告</translation>
    </message>
    <message>
        <source>Range</source>
        <translation>时间范围</translation>
    </message>
    <message>
        <source>UTC, an IANA name such as Europe/Berlin, or an offset such as +02:00</source>
        <translation>UTC、IANA 名称（如 Europe/Berlin）或偏移量（如 +02:00）</translation>
    </message>
    <message>
        <source>Time zone</source>
        <translation>时区</translation>
    </message>
    <message>
        <source>Team</source>
        <translation>团队</translation>
    </message>
    <message>
        <source>Department</source>
        <translation>部门</translation>
    </message>
    <message>
        <source>Queue</source>
        <translation>队列</translation>
    </message>
    <message>
        <source>Pool</source>
        <translation>资源池</translation>
    </message>
    <message>
        <source>GPU model</source>
        <translation>GPU 型号</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Job</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>Group by</source>
        <translation>分组依据</translation>
    </message>
    <message>
        <source>all teams (or a comma-separated list)</source>
        <translation>所有团队（或以逗号分隔的列表）</translation>
    </message>
    <message>
        <source>Teams</source>
        <translation>团队</translation>
    </message>
    <message>
        <source> %</source>
        <translation> %</translation>
    </message>
    <message>
        <source>A GPU below this utilization counts as idle</source>
        <translation>利用率低于此值的 GPU 视为空闲</translation>
    </message>
    <message>
        <source>Idle below</source>
        <translation>空闲阈值</translation>
    </message>
    <message>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <source>Shorter idle stretches are not counted as idle</source>
        <translation>更短的空闲时段不计为空闲</translation>
    </message>
    <message>
        <source>Idle for at least</source>
        <translation>最短空闲时长</translation>
    </message>
    <message>
        <source>Price table</source>
        <translation>价格表</translation>
    </message>
    <message>
        <source>PDF document</source>
        <translation>PDF 文档</translation>
    </message>
    <message>
        <source>HTML page</source>
        <translation>HTML 页面</translation>
    </message>
    <message>
        <source>CSV files (a directory)</source>
        <translation>CSV 文件（一个目录）</translation>
    </message>
    <message>
        <source>JSON</source>
        <translation>JSON</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>Save to</source>
        <translation>保存到</translation>
    </message>
    <message>
        <source>Preview computes the report and shows it here.</source>
        <translation>“预览”会计算报告并在此显示。</translation>
    </message>
    <message>
        <source>Last 24 hours</source>
        <translation>最近 24 小时</translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation>最近 7 天</translation>
    </message>
    <message>
        <source>Last 30 days</source>
        <translation>最近 30 天</translation>
    </message>
    <message>
        <source>Whole history</source>
        <translation>全部历史</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>自定义</translation>
    </message>
    <message>
        <source>from</source>
        <translation>从</translation>
    </message>
    <message>
        <source>to</source>
        <translation>到</translation>
    </message>
    <message>
        <source>none: no cost figures</source>
        <translation>无：不含费用数据</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Preview</source>
        <translation>预览</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop computing the report</source>
        <translation>停止计算报告</translation>
    </message>
    <message>
        <source>Simulated time has no time zone</source>
        <translation>模拟时间没有时区</translation>
    </message>
    <message>
        <source>Known teams: %1</source>
        <translation>已知团队：%1</translation>
    </message>
    <message>
        <source>Everything the session has recorded.</source>
        <translation>会话记录的全部数据。</translation>
    </message>
    <message>
        <source>%1 – %2</source>
        <translation>%1 – %2</translation>
    </message>
    <message>
        <source>%1 (simulated time)</source>
        <translation>%1（模拟时间）</translation>
    </message>
    <message>
        <source>The range ends before it starts: give a “to” later than “from”.</source>
        <translation>时间范围的结束早于开始：“到”必须晚于“从”。</translation>
    </message>
    <message>
        <source>Price table: %1</source>
        <translation>价格表：%1</translation>
    </message>
    <message>
        <source>Price tables (*.yaml *.yml);;All files (*)</source>
        <translation>价格表 (*.yaml *.yml);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Directory for the CSV files</source>
        <translation>CSV 文件的目录</translation>
    </message>
    <message>
        <source>PDF documents (*.pdf)</source>
        <translation>PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <source>HTML pages (*.html *.htm)</source>
        <translation>HTML 页面 (*.html *.htm)</translation>
    </message>
    <message>
        <source>JSON files (*.json)</source>
        <translation>JSON 文件 (*.json)</translation>
    </message>
    <message>
        <source>Choose where to save the report.</source>
        <translation>请选择报告的保存位置。</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>已取消。</translation>
    </message>
    <message>
        <source>No session to compute the report from.</source>
        <translation>没有可用于计算报告的会话。</translation>
    </message>
    <message>
        <source>Computing the report…</source>
        <translation>正在计算报告…</translation>
    </message>
    <message>
        <source>Cannot write the report: %1</source>
        <translation>无法写入报告：%1</translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation>已写入 %1</translation>
    </message>
    <message>
        <source>Preview ready; Export writes this report.</source>
        <translation>预览已就绪；“导出”将写出此报告。</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::SharingStudyDialog</name>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Sharing study</source>
        <translation>GPU 共享研究</translation>
    </message>
    <message>
        <source>Synthetic jobs</source>
        <translation>合成作业数</translation>
    </message>
    <message>
        <source>Arrivals per hour</source>
        <translation>每小时到达数</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>Running the study…</source>
        <translation>正在运行研究…</translation>
    </message>
    <message>
        <source>The study failed: %1</source>
        <translation>研究失败：%1</translation>
    </message>
    <message>
        <source>GPUs needed</source>
        <translation>所需 GPU</translation>
    </message>
    <message>
        <source>Stranded GPUs</source>
        <translation>受困闲置 GPU</translation>
    </message>
    <message>
        <source>Co-located jobs</source>
        <translation>共置作业</translation>
    </message>
    <message>
        <source>Synthetic</source>
        <translation>合成</translation>
    </message>
    <message>
        <source>Trace file</source>
        <translation>跟踪文件</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>A trace: openb, Helios, Philly, SWF or a Tessera job list</source>
        <translation>跟踪文件：openb、Helios、Philly、SWF 或 Tessera 作业列表</translation>
    </message>
    <message>
        <source>Detect from the file</source>
        <translation>根据文件自动识别</translation>
    </message>
    <message>
        <source>p95 queue wait per workload class, like inference=5m, or 10m for every class; several separated by spaces</source>
        <translation>每个工作负载类别的 p95 排队等待时间，例如 inference=5m，或 10m 表示所有类别；多个用空格分隔</translation>
    </message>
    <message>
        <source>Workload</source>
        <translation>工作负载</translation>
    </message>
    <message>
        <source>Trace</source>
        <translation>跟踪</translation>
    </message>
    <message>
        <source>Wait targets (p95)</source>
        <translation>等待目标（p95）</translation>
    </message>
    <message>
        <source>Slots per time-sliced GPU</source>
        <translation>每个时间分片 GPU 的槽位数</translation>
    </message>
    <message>
        <source>Stopping the study…</source>
        <translation>正在停止研究…</translation>
    </message>
    <message>
        <source>Choose a trace file.</source>
        <translation>请选择跟踪文件。</translation>
    </message>
    <message>
        <source>The trace could not be read.</source>
        <translation>无法读取跟踪文件。</translation>
    </message>
    <message>
        <source>The study was stopped.</source>
        <translation>研究已停止。</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <comment>one sentence of the recommendation after another</comment>
        <translation>%1%2</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::SharingStudyModel</name>
    <message>
        <source>skipped</source>
        <translation>已跳过</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>Shared GPUs</source>
        <translation>共享 GPU</translation>
    </message>
    <message>
        <source>GPUs needed</source>
        <translation>所需 GPU</translation>
    </message>
    <message>
        <source>Allocated %</source>
        <translation>已分配 %</translation>
    </message>
    <message>
        <source>Busy %</source>
        <translation>繁忙 %</translation>
    </message>
    <message>
        <source>Stranded GPUs</source>
        <translation>受困闲置 GPU</translation>
    </message>
    <message>
        <source>GPU-h beyond need</source>
        <translation>超出需求的 GPU 小时</translation>
    </message>
    <message>
        <source>Co-located jobs</source>
        <translation>共置作业</translation>
    </message>
    <message>
        <source>Wait p95 %1 (min)</source>
        <translation>等待 p95 %1（分钟）</translation>
    </message>
</context>
<context>
    <name>tessera::widgets::UtilizationChart</name>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Allocated but idle</source>
        <translation>已分配但闲置</translation>
    </message>
    <message>
        <source>Allocated</source>
        <translation>已分配</translation>
    </message>
    <message>
        <source>Busy</source>
        <translation>繁忙</translation>
    </message>
    <message>
        <source>Effective (SM active)</source>
        <translation>有效（SM 活跃度）</translation>
    </message>
    <message>
        <source>GPUs allocated by team</source>
        <translation>按团队分配的 GPU</translation>
    </message>
    <message>
        <source>No utilization telemetry for this range: only allocation is shown.</source>
        <translation>此时间范围内没有利用率遥测数据：仅显示分配情况。</translation>
    </message>
    <message>
        <source>No busy-GPU telemetry for this range: the busy line and the idle gap are hidden.</source>
        <translation>此时间范围内没有繁忙 GPU 遥测数据：已隐藏“繁忙”曲线和“已分配但闲置”区域。</translation>
    </message>
    <message>
        <source>No SM-activity telemetry for this range: the effective line is hidden.</source>
        <translation>此时间范围内没有 SM 活跃度遥测数据：已隐藏“有效”曲线。</translation>
    </message>
    <message>
        <source>Whose utilization the upper chart shows: the cluster, one pool, or one team with its sub-teams</source>
        <translation>上方图表显示谁的利用率：整个集群、一个池，或一个团队及其子团队</translation>
    </message>
    <message>
        <source>&amp;Scope:</source>
        <translation>范围(&amp;S)：</translation>
    </message>
    <message>
        <source>Pool: %1</source>
        <translation>池：%1</translation>
    </message>
    <message>
        <source>Team: %1</source>
        <translation>团队：%1</translation>
    </message>
    <message>
        <source>Cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>Loading %1…</source>
        <translation>正在加载 %1…</translation>
    </message>
    <message>
        <source>%1: GPUs allocated, busy, effective and tensor active</source>
        <translation>%1：已分配、繁忙、有效和 Tensor 活跃的 GPU</translation>
    </message>
    <message>
        <source>Tensor active</source>
        <translation>Tensor 活跃</translation>
    </message>
    <message>
        <source>No data for %1 in this range: its series are not recorded (a database from before per-pool and per-team series, or nothing recorded yet).</source>
        <translation>此时间范围内没有 %1 的数据：其序列未被记录（数据库早于按池和按团队的序列，或尚未记录任何内容）。</translation>
    </message>
    <message>
        <source>No tensor-activity telemetry for this range: the tensor line is hidden.</source>
        <translation>此时间范围内没有 Tensor 活跃度遥测：Tensor 曲线已隐藏。</translation>
    </message>
    <message>
        <source>Utilization</source>
        <translation>利用率</translation>
    </message>
    <message>
        <source>By team</source>
        <translation>按团队</translation>
    </message>
</context>
</TS>
