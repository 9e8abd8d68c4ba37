<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>ApiServerDialog</name>
    <message>
        <source>A request in OpenAI&apos;s dialect, from a terminal.</source>
        <translation>在终端中以 OpenAI 格式发送一个请求。</translation>
    </message>
    <message>
        <source>With OpenAI&apos;s library for Python (pip install openai).</source>
        <translation>使用 OpenAI 的 Python 库（pip install openai）。</translation>
    </message>
    <message>
        <source>With Ollama&apos;s library for Python (pip install ollama). Apps that take an Ollama address (Open WebUI, editors&apos; plug-ins) use {0}.</source>
        <translation>使用 Ollama 的 Python 库（pip install ollama）。可以填写 Ollama 地址的应用（Open WebUI、编辑器插件）请使用 {0}。</translation>
    </message>
    <message>
        <source>Your document collections for an MCP client (Claude Desktop, Cursor, LM Studio): add this to its mcpServers. It runs hearth mcp, which only searches them.</source>
        <translation>把你的文档集提供给 MCP 客户端（Claude Desktop、Cursor、LM Studio）：将这段加入它的 mcpServers。它运行 hearth mcp，只搜索文档集。</translation>
    </message>
    <message>
        <source>OpenAI client (Python)</source>
        <translation>OpenAI 客户端（Python）</translation>
    </message>
    <message>
        <source>Ollama clients</source>
        <translation>Ollama 客户端</translation>
    </message>
    <message>
        <source>MCP clients</source>
        <translation>MCP 客户端</translation>
    </message>
    <message>
        <source>API server</source>
        <translation>API 服务器</translation>
    </message>
    <message>
        <source>Other programs on this computer (editors, agents, scripts) can use your models through Hearth, in OpenAI&apos;s, Ollama&apos;s and Anthropic&apos;s dialects. Nothing leaves the computer unless you choose an address for other computers.</source>
        <translation>这台电脑上的其他程序（编辑器、智能体、脚本）可以通过 Hearth 使用你的模型，支持 OpenAI、Ollama 和 Anthropic 的接口格式。除非你选择一个供其他电脑访问的地址，否则没有任何数据离开这台电脑。</translation>
    </message>
    <message>
        <source>Use a free port</source>
        <translation>使用空闲端口</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <source>127.0.0.1: only this computer. 0.0.0.0: every network of this computer (then a key is required).</source>
        <translation>127.0.0.1：仅这台电脑。0.0.0.0：这台电脑的所有网络（此时需要密钥）。</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>none: programs on this computer need no key</source>
        <translation>无：这台电脑上的程序不需要密钥</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>New key</source>
        <translation>新密钥</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Examples</source>
        <translation>示例</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>启动</translation>
    </message>
    <message>
        <source>Stop the API server</source>
        <translation>停止 API 服务器</translation>
    </message>
    <message>
        <source>Start the API server</source>
        <translation>启动 API 服务器</translation>
    </message>
    <message>
        <source>Running at {0}/v1 (Ollama&apos;s dialect at {0}). Models offered ({1}): {2}.</source>
        <translation>正在 {0}/v1 运行（Ollama 格式在 {0}）。提供的模型（{1} 个）：{2}。</translation>
    </message>
    <message>
        <source>Other computers reach it at this computer&apos;s address.</source>
        <translation>其他电脑可通过这台电脑的地址访问它。</translation>
    </message>
    <message>
        <source>Stopped. Start makes it listen at {0}/v1.</source>
        <translation>已停止。点击“启动”后将在 {0}/v1 监听。</translation>
    </message>
    <message>
        <source>The key is read from HEARTH_API_KEY: set it to the key above.</source>
        <translation>密钥从 HEARTH_API_KEY 读取：请把它设为上面的密钥。</translation>
    </message>
    <message>
        <source>Port {0} is already in use on {1}: another program listens there.</source>
        <translation>{1} 上的端口 {0} 已被占用：另一个程序正在监听。</translation>
    </message>
    <message>
        <source>starting the API</source>
        <translation>启动 API</translation>
    </message>
    <message>
        <source>finding a free port</source>
        <translation>查找空闲端口</translation>
    </message>
    <message>
        <source>saving the address</source>
        <translation>保存地址</translation>
    </message>
    <message>
        <source>saving the key</source>
        <translation>保存密钥</translation>
    </message>
    <message>
        <source>The new key is used once the server starts again (Stop, Start).</source>
        <translation>新密钥将在服务器重新启动后生效（先停止，再启动）。</translation>
    </message>
    <message>
        <source>Hide</source>
        <translation>隐藏</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
</context>
<context>
    <name>ApiSwitch</name>
    <message>
        <source>API serving the library at {0}/v1, {1} by default</source>
        <translation>API 正在 {0}/v1 提供模型库，默认模型为 {1}</translation>
    </message>
    <message>
        <source>API stopped</source>
        <translation>API 已停止</translation>
    </message>
    <message>
        <source>Chat and API</source>
        <translation>聊天和 API</translation>
    </message>
    <message>
        <source>Chat</source>
        <translation>聊天</translation>
    </message>
    <message>
        <source>API</source>
        <translation>API</translation>
    </message>
    <message>
        <source>Documents</source>
        <translation>文档</translation>
    </message>
    <message>
        <source>starting the API</source>
        <translation>启动 API</translation>
    </message>
</context>
<context>
    <name>CatalogCard</name>
    <message>
        <source>Everyday chat</source>
        <translation>日常聊天</translation>
    </message>
    <message>
        <source>Reasoning (thinks first)</source>
        <translation>推理（先思考）</translation>
    </message>
    <message>
        <source>Coding</source>
        <translation>编程</translation>
    </message>
    <message>
        <source>Chinese and many languages</source>
        <translation>中文及多种语言</translation>
    </message>
    <message>
        <source>Pictures (reads images)</source>
        <translation>图片理解（能读图片）</translation>
    </message>
    <message>
        <source>Document search (embeddings)</source>
        <translation>文档检索（向量）</translation>
    </message>
    <message>
        <source>Runs on your GPU</source>
        <translation>在你的 GPU 上运行</translation>
    </message>
    <message>
        <source>Runs partly on your GPU</source>
        <translation>部分在你的 GPU 上运行</translation>
    </message>
    <message>
        <source>Runs on your CPU</source>
        <translation>在你的 CPU 上运行</translation>
    </message>
    <message>
        <source>Too large for this computer</source>
        <translation>对这台电脑来说太大</translation>
    </message>
    <message>
        <source>about {0} words a second</source>
        <translation>每秒约 {0} 个词</translation>
    </message>
    <message>
        <source>{0} download</source>
        <translation>下载 {0}</translation>
    </message>
    <message>
        <source>reads images</source>
        <translation>能读图片</translation>
    </message>
    <message>
        <source>{0} parameters, {1} file {2} from {3}</source>
        <translation>{0} 参数，{1} 文件 {2}，来自 {3}</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Cancel downloading {0}</source>
        <translation>取消下载 {0}</translation>
    </message>
    <message>
        <source>Downloaded</source>
        <translation>已下载</translation>
    </message>
    <message>
        <source>Chat with it</source>
        <translation>用它聊天</translation>
    </message>
    <message>
        <source>Chat with {0}</source>
        <translation>与 {0} 聊天</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>Download {0}</source>
        <translation>下载 {0}</translation>
    </message>
    <message>
        <source>Try again to download {0}</source>
        <translation>重新下载 {0}</translation>
    </message>
    <message>
        <source>Try again</source>
        <translation>重试</translation>
    </message>
</context>
<context>
    <name>CatalogCheck</name>
    <message>
        <source>checking the catalogue on the hub</source>
        <translation>在模型站核对目录</translation>
    </message>
    <message>
        <source>The check failed: {0}</source>
        <translation>检查失败：{0}</translation>
    </message>
</context>
<context>
    <name>CatalogController</name>
    <message>
        <source>{0} was downloaded but cannot be used: {1}</source>
        <translation>{0} 已下载，但无法使用：{1}</translation>
    </message>
    <message>
        <source>{0} is ready: choose it in the model list or on its card.</source>
        <translation>{0} 已就绪：可在模型列表或它的卡片上选择。</translation>
    </message>
    <message>
        <source>{0} is ready.</source>
        <translation>{0} 已就绪。</translation>
    </message>
    <message>
        <source>reading the model catalogue</source>
        <translation>读取模型目录</translation>
    </message>
</context>
<context>
    <name>CatalogDownloads</name>
    <message>
        <source>Finding the file…</source>
        <translation>正在查找文件…</translation>
    </message>
    <message>
        <source>finding the model&apos;s file</source>
        <translation>查找模型文件</translation>
    </message>
    <message>
        <source>adding the download</source>
        <translation>添加下载</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在开始…</translation>
    </message>
    <message>
        <source>The download was cancelled.</source>
        <translation>下载已取消。</translation>
    </message>
    <message>
        <source>{0} of {1}</source>
        <translation>{0} / {1}</translation>
    </message>
    <message>
        <source>Checking the file…</source>
        <translation>正在校验文件…</translation>
    </message>
    <message>
        <source>Paused — resume it in Models › Downloads</source>
        <translation>已暂停——可在 模型 › 下载 中继续</translation>
    </message>
    <message>
        <source> · {0}/s · {1} left</source>
        <translation> · {0}/秒 · 剩余 {1}</translation>
    </message>
</context>
<context>
    <name>CatalogPanel</name>
    <message>
        <source>Recommended for this computer</source>
        <translation>为这台电脑推荐</translation>
    </message>
    <message>
        <source>Check the hub</source>
        <translation>在模型站检查</translation>
    </message>
    <message>
        <source>Ask the hub for today&apos;s file names and sizes of the catalogue&apos;s models. Only the models&apos; repositories are asked for; nothing about you.</source>
        <translation>向模型站查询目录中各模型当前的文件名和大小。只查询这些模型的仓库，不涉及任何关于你的信息。</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>正在检查…</translation>
    </message>
    <message>
        <source>Hearth&apos;s catalogue: {0} models match “{1}”</source>
        <translation>Hearth 目录：{0} 个模型匹配“{1}”</translation>
    </message>
    <message>
        <source>Hearth&apos;s catalogue by use, the best for this computer first</source>
        <translation>Hearth 目录：按用途排列，最适合这台电脑的在前</translation>
    </message>
    <message>
        <source>Show fewer</source>
        <translation>收起</translation>
    </message>
    <message>
        <source>All {0} catalogue models</source>
        <translation>目录中全部 {0} 个模型</translation>
    </message>
</context>
<context>
    <name>ChatScreen</name>
    <message>
        <source>Deleted “{0}”.</source>
        <translation>已删除“{0}”。</translation>
    </message>
    <message>
        <source>{0} is a Hugging Face checkpoint and needs the PyTorch engine, which is not installed. Add it in Settings › Engines.</source>
        <translation>{0} 是 Hugging Face 检查点，需要 PyTorch 引擎，但它尚未安装。请在 设置 › 推理引擎 中添加。</translation>
    </message>
    <message>
        <source>Wait for the reply to finish (or press Stop) before switching models.</source>
        <translation>请等待回复完成（或按“停止”）后再切换模型。</translation>
    </message>
    <message>
        <source>Wait for the reply to finish (or press Stop) first.</source>
        <translation>请先等待回复完成（或按“停止”）。</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
    <message>
        <source>saving your message</source>
        <translation>保存你的消息</translation>
    </message>
    <message>
        <source>saving the reply</source>
        <translation>保存回复</translation>
    </message>
    <message>
        <source>Allowed. Send your message again to load the model with its code.</source>
        <translation>已允许。请重新发送消息，以加载模型及其代码。</translation>
    </message>
</context>
<context>
    <name>ChatSidebar</name>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
</context>
<context>
    <name>ChatToolsUi</name>
    <message>
        <source>Tools this chat may use</source>
        <translation>此对话可以使用的工具</translation>
    </message>
    <message>
        <source>Let the model call tools (it asks you before each call)</source>
        <translation>让模型调用工具（每次调用前都会先问你）</translation>
    </message>
    <message>
        <source>Use tools</source>
        <translation>使用工具</translation>
    </message>
    <message>
        <source>Use tools: automatically</source>
        <translation>使用工具：自动</translation>
    </message>
    <message>
        <source>Use tools: always</source>
        <translation>使用工具：总是</translation>
    </message>
    <message>
        <source>Use tools: never</source>
        <translation>使用工具：从不</translation>
    </message>
    <message>
        <source>Tools: {0}</source>
        <translation>工具：{0}</translation>
    </message>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Automatically: the model decides. Always: its first answer is a call of one of the tools. Never: no tools are offered.</source>
        <translation>自动：由模型决定。总是：模型的第一个回答必须是调用其中一个工具。从不：不提供任何工具。</translation>
    </message>
    <message>
        <source>Hearth: date and time, search of the collections</source>
        <translation>Hearth：日期和时间、搜索文档集</translation>
    </message>
    <message>
        <source>No tool servers yet: add them in Tool servers…</source>
        <translation>还没有工具服务器：请在“工具服务器…”中添加</translation>
    </message>
    <message>
        <source>Tools of {0}</source>
        <translation>{0} 的工具</translation>
    </message>
    <message>
        <source>Tool servers…</source>
        <translation>工具服务器…</translation>
    </message>
    <message>
        <source>saving the conversation settings</source>
        <translation>保存对话设置</translation>
    </message>
    <message>
        <source>starting the tool server {0}</source>
        <translation>启动工具服务器 {0}</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>Message the model… (Enter to send, Shift+Enter for a new line)</source>
        <translation>给模型发消息…（Enter 发送，Shift+Enter 换行）</translation>
    </message>
</context>
<context>
    <name>ComposerArea</name>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Send message</source>
        <translation>发送消息</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop the reply</source>
        <translation>停止回复</translation>
    </message>
    <message>
        <source>Editing your message: Send keeps the old version as a branch (Esc cancels).</source>
        <translation>正在编辑你的消息：发送后旧版本会保留为一个分支（Esc 取消）。</translation>
    </message>
</context>
<context>
    <name>ContextMeter</name>
    <message>
        <source>Context used</source>
        <translation>已用上下文</translation>
    </message>
    <message>
        <source>How much of the model&apos;s context window this conversation fills. When it is full, the oldest messages are left out of what the model sees (the system prompt and your newest message are always kept), and Hearth says so. The conversation itself is never shortened.</source>
        <translation>此对话占用了模型上下文窗口的多少。占满后，最早的消息将不再发送给模型（系统提示词和你最新的消息始终保留），Hearth 会提示你。对话本身永远不会被删减。</translation>
    </message>
    <message>
        <source>Context: {0}{1} / {2} tokens</source>
        <translation>上下文：{0}{1} / {2} 个 token</translation>
    </message>
</context>
<context>
    <name>ConversationFiles</name>
    <message>
        <source>Open a conversation first.</source>
        <translation>请先打开一个对话。</translation>
    </message>
    <message>
        <source>Export conversation</source>
        <translation>导出对话</translation>
    </message>
    <message>
        <source>Markdown (*.md);;Hearth conversation, JSON (*.json)</source>
        <translation>Markdown (*.md);;Hearth 对话，JSON (*.json)</translation>
    </message>
    <message>
        <source>exporting the conversation</source>
        <translation>导出对话</translation>
    </message>
    <message>
        <source>Exported to {0}</source>
        <translation>已导出到 {0}</translation>
    </message>
    <message>
        <source>Import conversation</source>
        <translation>导入对话</translation>
    </message>
    <message>
        <source>Conversation, JSON (*.json);;All files (*)</source>
        <translation>对话，JSON (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>importing {0}</source>
        <translation>导入 {0}</translation>
    </message>
</context>
<context>
    <name>ConversationList</name>
    <message>
        <source>Conversations</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Delete conversation</source>
        <translation>删除对话</translation>
    </message>
    <message>
        <source>Pinned: {0}</source>
        <translation>已置顶：{0}</translation>
    </message>
    <message>
        <source>Rename</source>
        <translation>重命名</translation>
    </message>
    <message>
        <source>Unpin</source>
        <translation>取消置顶</translation>
    </message>
    <message>
        <source>Pin to the top</source>
        <translation>置顶</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
</context>
<context>
    <name>ConversationSettingsDialog</name>
    <message>
        <source>Instructions for this conversation</source>
        <translation>此对话的指令</translation>
    </message>
    <message>
        <source>Preset</source>
        <translation>预设</translation>
    </message>
    <message>
        <source>Save as preset…</source>
        <translation>另存为预设…</translation>
    </message>
    <message>
        <source>Preset:</source>
        <translation>预设：</translation>
    </message>
    <message>
        <source>Instructions for the model in this conversation:</source>
        <translation>本对话中给模型的指令：</translation>
    </message>
    <message>
        <source>Also called the system prompt.</source>
        <translation>也叫系统提示词。</translation>
    </message>
    <message>
        <source>Instructions</source>
        <translation>指令</translation>
    </message>
    <message>
        <source>For example: Answer in French.</source>
        <translation>例如：请用法语回答。</translation>
    </message>
    <message>
        <source>The model&apos;s authors recommend: {0}</source>
        <translation>模型作者推荐：{0}</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>Save as preset</source>
        <translation>另存为预设</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>The preset was not saved: {0}</source>
        <translation>预设未保存：{0}</translation>
    </message>
    <message>
        <source>saving the conversation settings</source>
        <translation>保存对话设置</translation>
    </message>
</context>
<context>
    <name>DocumentsBar</name>
    <message>
        <source>Attach…</source>
        <translation>附件…</translation>
    </message>
    <message>
        <source>Give the model files or pictures with your next message (or drop them on the box, or paste a picture)</source>
        <translation>随下一条消息给模型文件或图片（也可拖放到输入框，或粘贴图片）</translation>
    </message>
    <message>
        <source>Attach files</source>
        <translation>添加附件</translation>
    </message>
    <message>
        <source>Collections this chat answers from</source>
        <translation>此对话据以回答的文档集</translation>
    </message>
    <message>
        <source>Documents and pictures ({0})</source>
        <translation>文档和图片（{0}）</translation>
    </message>
    <message>
        <source>Documents ({0})</source>
        <translation>文档（{0}）</translation>
    </message>
    <message>
        <source>Pictures ({0})</source>
        <translation>图片（{0}）</translation>
    </message>
    <message>
        <source>reading {0}</source>
        <translation>读取 {0}</translation>
    </message>
    <message>
        <source>{0} cannot be attached: {1}.</source>
        <translation>无法附加 {0}：{1}。</translation>
    </message>
    <message>
        <source>No collections yet: make one on the Documents screen</source>
        <translation>还没有文档集：请在“文档”页面新建一个</translation>
    </message>
    <message>
        <source>Collections: {0}</source>
        <translation>文档集：{0}</translation>
    </message>
    <message>
        <source>Collections</source>
        <translation>文档集</translation>
    </message>
</context>
<context>
    <name>DocumentsScreen</name>
    <message>
        <source>Collections of your files that chats can answer from, with sources. Files stay where they are, are read only on this computer, and are kept up to date.</source>
        <translation>对话可以据以回答并注明出处的文件集合。文件保留在原处，只在这台电脑上读取，并会自动保持最新。</translation>
    </message>
    <message>
        <source>Collections</source>
        <translation>文档集</translation>
    </message>
    <message>
        <source>New collection…</source>
        <translation>新建文档集…</translation>
    </message>
    <message>
        <source>Ask this collection</source>
        <translation>向此文档集提问</translation>
    </message>
    <message>
        <source>A new chat whose answers come from this collection, with their sources</source>
        <translation>新建一个对话，回答来自此文档集并附带来源</translation>
    </message>
    <message>
        <source>Add folder…</source>
        <translation>添加文件夹…</translation>
    </message>
    <message>
        <source>Add files…</source>
        <translation>添加文件…</translation>
    </message>
    <message>
        <source>Update now</source>
        <translation>立即更新</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Remove…</source>
        <translation>移除…</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Files of the collection</source>
        <translation>文档集中的文件</translation>
    </message>
    <message>
        <source>{0}
{1} files · {2} passages</source>
        <translation>{0}
{1} 个文件 · {2} 个段落</translation>
    </message>
    <message>
        <source>No collections yet. Make one, then add a folder to it.</source>
        <translation>还没有文档集。新建一个，然后向其中添加文件夹。</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>(no files or folders yet)</source>
        <translation>（还没有文件或文件夹）</translation>
    </message>
    <message>
        <source> (paused)</source>
        <translation>（已暂停）</translation>
    </message>
    <message>
        <source>indexed</source>
        <translation>已索引</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>skipped</source>
        <translation>已跳过</translation>
    </message>
    <message>
        <source>New collection</source>
        <translation>新建文档集</translation>
    </message>
    <message>
        <source>A name for the collection, for example “Taxes 2025”. Next you choose the folder whose documents it reads; Hearth keeps it up to date.</source>
        <translation>给这个文档集起个名字，例如“2025 年报税”。接下来选择它要读取文档的文件夹；Hearth 会让它保持最新。</translation>
    </message>
    <message>
        <source>Name of the collection</source>
        <translation>文档集名称</translation>
    </message>
    <message>
        <source>A folder for {0}</source>
        <translation>为 {0} 选择文件夹</translation>
    </message>
    <message>
        <source>Add a folder to {0}</source>
        <translation>向 {0} 添加文件夹</translation>
    </message>
    <message>
        <source>Add files to {0}</source>
        <translation>向 {0} 添加文件</translation>
    </message>
    <message>
        <source>Remove {0}?</source>
        <translation>移除 {0}？</translation>
    </message>
    <message>
        <source>Forget the collection {0} and its index? Your files are not touched.</source>
        <translation>要忘记文档集 {0} 及其索引吗？你的文件不会被改动。</translation>
    </message>
    <message>
        <source> · about {0} left</source>
        <translation> · 约剩 {0}</translation>
    </message>
    <message>
        <source>{0}: {1} of {2} files · {3} of {4}{5}</source>
        <translation>{0}：{1}/{2} 个文件 · {3}/{4}{5}</translation>
    </message>
    <message>
        <source>indexing documents</source>
        <translation>索引文档</translation>
    </message>
</context>
<context>
    <name>DownloadsModel</name>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Repository</source>
        <translation>仓库</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>Downloading</source>
        <translation>下载中</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>Checking</source>
        <translation>校验中</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>Verified</source>
        <translation>已校验</translation>
    </message>
    <message>
        <source>{0:.0%} · {1} of {2}</source>
        <translation>{0:.0%} · {1} / {2}</translation>
    </message>
    <message>
        <source>{0} left</source>
        <translation>剩余 {0}</translation>
    </message>
</context>
<context>
    <name>DownloadsPanel</name>
    <message>
        <source>Downloads</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Clear finished</source>
        <translation>清除已完成</translation>
    </message>
    <message>
        <source>Choose a download in the list first.</source>
        <translation>请先在列表中选择一个下载。</translation>
    </message>
</context>
<context>
    <name>EndpointDialog</name>
    <message>
        <source>Add a server endpoint</source>
        <translation>添加服务器端点</translation>
    </message>
    <message>
        <source>An OpenAI-compatible server: vLLM, trtllm-serve, Ollama, llama-server, LM Studio or another Hearth.</source>
        <translation>兼容 OpenAI 的服务器：vLLM、trtllm-serve、Ollama、llama-server、LM Studio 或另一个 Hearth。</translation>
    </message>
    <message>
        <source>e.g. gpu-box</source>
        <translation>例如 gpu-box</translation>
    </message>
    <message>
        <source>http://192.168.1.20:8000</source>
        <translation>http://192.168.1.20:8000</translation>
    </message>
    <message>
        <source>optional; kept in the system keyring</source>
        <translation>可选；保存在系统钥匙串中</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
</context>
<context>
    <name>EngineRow</name>
    <message>
        <source>engine for Hugging Face checkpoints</source>
        <translation>用于 Hugging Face 检查点的引擎</translation>
    </message>
    <message>
        <source>llama.cpp runtime that comes with Hearth</source>
        <translation>Hearth 自带的 llama.cpp 运行时</translation>
    </message>
    <message>
        <source>llama.cpp runtime pack ({0})</source>
        <translation>llama.cpp 运行时包（{0}）</translation>
    </message>
    <message>
        <source>Install</source>
        <translation>安装</translation>
    </message>
    <message>
        <source>Reinstall</source>
        <translation>重新安装</translation>
    </message>
    <message>
        <source>Remove…</source>
        <translation>移除…</translation>
    </message>
    <message>
        <source>Roll back</source>
        <translation>回退</translation>
    </message>
    <message>
        <source>Delete download</source>
        <translation>删除下载</translation>
    </message>
    <message>
        <source>Install…</source>
        <translation>安装…</translation>
    </message>
    <message>
        <source>Reinstall…</source>
        <translation>重新安装…</translation>
    </message>
    <message>
        <source>the PyTorch engine</source>
        <translation>PyTorch 引擎</translation>
    </message>
    <message>
        <source>the {0} runtime</source>
        <translation>{0} 运行时</translation>
    </message>
</context>
<context>
    <name>EngineRowView</name>
    <message>
        <source>PyTorch engine</source>
        <translation>PyTorch 引擎</translation>
    </message>
    <message>
        <source>Usable here</source>
        <translation>可在本机使用</translation>
    </message>
    <message>
        <source>Installed, not usable here</source>
        <translation>已安装，但无法在本机使用</translation>
    </message>
    <message>
        <source>Not installed</source>
        <translation>未安装</translation>
    </message>
    <message>
        <source>{0}: {1}</source>
        <translation>{0}：{1}</translation>
    </message>
    <message>
        <source>{0} on disk</source>
        <translation>占用磁盘 {0}</translation>
    </message>
    <message>
        <source>{0} to download</source>
        <translation>需下载 {0}</translation>
    </message>
    <message>
        <source>{0} downloaded by an install that did not finish</source>
        <translation>未完成的安装已下载 {0}</translation>
    </message>
</context>
<context>
    <name>Engines</name>
    <message>
        <source>llama.cpp</source>
        <translation>llama.cpp</translation>
    </message>
    <message>
        <source>Layers on the GPU</source>
        <translation>放在 GPU 上的层数</translation>
    </message>
    <message>
        <source>How many of the model&apos;s layers go on the GPU (GPU layers, -ngl in llama.cpp): -1 all, 0 none. Automatic puts as many as fit.</source>
        <translation>模型有多少层放在 GPU 上（GPU 层数，llama.cpp 中的 -ngl）：-1 表示全部，0 表示不放。自动：放得下多少就放多少。</translation>
    </message>
    <message>
        <source>CPU threads</source>
        <translation>CPU 线程数</translation>
    </message>
    <message>
        <source>Threads for generation; automatic: physical cores.</source>
        <translation>生成所用的线程数；自动：物理核心数。</translation>
    </message>
    <message>
        <source>Context length</source>
        <translation>上下文长度</translation>
    </message>
    <message>
        <source>How much conversation the model sees at once; automatic: the setting in Settings.</source>
        <translation>模型一次能看到的对话长度；自动：使用设置中的值。</translation>
    </message>
    <message>
        <source>Replies at once</source>
        <translation>同时回复数</translation>
    </message>
    <message>
        <source>How many replies this model writes at the same time, each with the whole context of its own (the context&apos;s memory counted that many times); automatic: the setting in Settings, fewer where more would not fit.</source>
        <translation>此模型同时撰写的回复数，每个回复都有自己完整的上下文（上下文所需内存按此数计算）；自动：使用设置中的值，装不下时自动减少。</translation>
    </message>
    <message>
        <source>llama.cpp runtime</source>
        <translation>llama.cpp 运行时</translation>
    </message>
    <message>
        <source>Which build of llama.cpp runs the model: CUDA (NVIDIA), Vulkan (NVIDIA, AMD, Intel), Metal (Apple) or the CPU. Automatic: the fastest that works here (see System check).</source>
        <translation>由哪个 llama.cpp 版本运行模型：CUDA（NVIDIA）、Vulkan（NVIDIA、AMD、Intel）、Metal（Apple）或 CPU。自动：选用本机可用的最快版本（见系统检查）。</translation>
    </message>
    <message>
        <source>Don&apos;t guess ahead from the conversation</source>
        <translation>不根据对话预先猜测</translation>
    </message>
    <message>
        <source>Hearth guesses the next words from the conversation and checks several at once (prompt-lookup decoding): faster when the reply repeats the prompt (editing code, quoting), the same reply either way. On unless turned off here.</source>
        <translation>Hearth 根据对话猜测接下来的词，并一次验证多个（提示查找解码）：当回复重复提示内容时（编辑代码、引用）更快，回复内容完全相同。除非在此关闭，否则默认开启。</translation>
    </message>
    <message>
        <source>16-bit, for newer GPUs (bfloat16)</source>
        <translation>16 位，适合较新的 GPU（bfloat16）</translation>
    </message>
    <message>
        <source>16-bit, for older GPUs (float16)</source>
        <translation>16 位，适合较旧的 GPU（float16）</translation>
    </message>
    <message>
        <source>Full precision, twice the memory (float32)</source>
        <translation>全精度，内存占用翻倍（float32）</translation>
    </message>
    <message>
        <source>None: load the weights as they are</source>
        <translation>不量化：按原样加载权重</translation>
    </message>
    <message>
        <source>4 bits: about a quarter of the memory (bitsandbytes)</source>
        <translation>4 位：约四分之一的内存（bitsandbytes）</translation>
    </message>
    <message>
        <source>8 bits: about half the memory (bitsandbytes)</source>
        <translation>8 位：约一半的内存（bitsandbytes）</translation>
    </message>
    <message>
        <source>Attention method</source>
        <translation>注意力计算方式</translation>
    </message>
    <message>
        <source>How the model&apos;s attention is computed: SDPA works everywhere; FlashAttention-2 (flash attention) needs an NVIDIA GPU and the flash-attn package.</source>
        <translation>模型的注意力如何计算：SDPA 在任何地方都能用；FlashAttention-2（flash attention）需要 NVIDIA GPU 和 flash-attn 包。</translation>
    </message>
    <message>
        <source>PyTorch / transformers</source>
        <translation>PyTorch / transformers</translation>
    </message>
    <message>
        <source>Data type (checkpoints)</source>
        <translation>数据类型（检查点）</translation>
    </message>
    <message>
        <source>bfloat16 on GPUs that support it, float16 on older ones, float32 on the CPU.</source>
        <translation>支持的 GPU 上用 bfloat16，较旧的 GPU 上用 float16，CPU 上用 float32。</translation>
    </message>
    <message>
        <source>Automatic: 16-bit on a GPU, full precision on the CPU</source>
        <translation>自动：GPU 上用 16 位，CPU 上用全精度</translation>
    </message>
    <message>
        <source>Quantization on loading</source>
        <translation>加载时量化</translation>
    </message>
    <message>
        <source>Load a checkpoint in 4 or 8 bits (NVIDIA GPUs, bitsandbytes).</source>
        <translation>以 4 位或 8 位加载检查点（NVIDIA GPU，bitsandbytes）。</translation>
    </message>
    <message>
        <source>PyTorch&apos;s own, works everywhere (SDPA)</source>
        <translation>PyTorch 自带，到处可用（SDPA）</translation>
    </message>
    <message>
        <source>Flash attention: faster on NVIDIA GPUs (flash-attn package)</source>
        <translation>Flash attention：在 NVIDIA GPU 上更快（需要 flash-attn 包）</translation>
    </message>
    <message>
        <source>Static cache and torch.compile</source>
        <translation>静态缓存与 torch.compile</translation>
    </message>
    <message>
        <source>Faster replies on NVIDIA GPUs after a slower first one.</source>
        <translation>在 NVIDIA GPU 上，第一次回复较慢，之后更快。</translation>
    </message>
    <message>
        <source>Allow pickle weights (.bin): they can run code from the file</source>
        <translation>允许 pickle 权重（.bin）：它们可以运行文件中的代码</translation>
    </message>
    <message>
        <source>Only for checkpoints without safetensors, from sources you trust.</source>
        <translation>仅用于没有 safetensors 的检查点，且来源可信。</translation>
    </message>
    <message>
        <source>OpenAI-compatible server</source>
        <translation>OpenAI 兼容服务器</translation>
    </message>
    <message>
        <source>Scripted replies (tests)</source>
        <translation>脚本回复（测试）</translation>
    </message>
</context>
<context>
    <name>EnginesPanel</name>
    <message>
        <source>Engines and runtimes</source>
        <translation>引擎与运行时</translation>
    </message>
    <message>
        <source>Hugging Face checkpoints run on the PyTorch engine, GGUF models on llama.cpp. What does not come with Hearth is added here, checked on this computer before it is used, and can be removed again.</source>
        <translation>Hugging Face 检查点在 PyTorch 引擎上运行，GGUF 模型在 llama.cpp 上运行。Hearth 未自带的部分在这里添加，使用前会先在这台电脑上检查，之后也可以再移除。</translation>
    </message>
    <message>
        <source>Install progress</source>
        <translation>安装进度</translation>
    </message>
    <message>
        <source>Cancel install</source>
        <translation>取消安装</translation>
    </message>
    <message>
        <source>What was downloaded is kept: the next install goes on from there.</source>
        <translation>已下载的部分会保留：下次安装会从那里继续。</translation>
    </message>
    <message>
        <source>Looking for engines and runtimes…</source>
        <translation>正在查找引擎与运行时…</translation>
    </message>
    <message>
        <source>listing the engines</source>
        <translation>列出推理引擎</translation>
    </message>
    <message>
        <source>reading the lock file</source>
        <translation>读取锁定文件</translation>
    </message>
    <message>
        <source>{0} ({1})</source>
        <translation>{0}（{1}）</translation>
    </message>
    <message>
        <source>installing {0}</source>
        <translation>安装 {0}</translation>
    </message>
    <message>
        <source>Remove {0}?</source>
        <translation>移除 {0}？</translation>
    </message>
    <message>
        <source>It frees {0} of disk.</source>
        <translation>这将释放 {0} 磁盘空间。</translation>
    </message>
    <message>
        <source>Models that use it are unloaded first.</source>
        <translation>使用它的模型会先被卸载。</translation>
    </message>
    <message>
        <source>Hugging Face checkpoints cannot be used until it is installed again.</source>
        <translation>在重新安装之前，将无法使用 Hugging Face 检查点。</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>removing {0}</source>
        <translation>移除 {0}</translation>
    </message>
    <message>
        <source>going back to the version of {0} installed before</source>
        <translation>回退到之前安装的 {0} 版本</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Installing {0}…</source>
        <translation>正在安装 {0}…</translation>
    </message>
    <message>
        <source>Removing {0}…</source>
        <translation>正在移除 {0}…</translation>
    </message>
    <message>
        <source>Going back to the version of {0} installed before…</source>
        <translation>正在回退到之前安装的 {0} 版本…</translation>
    </message>
    <message>
        <source>One install, removal or rollback runs at a time: the other actions wait until this one has finished or been cancelled.</source>
        <translation>安装、移除和回退一次只能进行一项：其他操作要等这一项完成或取消之后才能进行。</translation>
    </message>
</context>
<context>
    <name>ErrorBanner</name>
    <message>
        <source>Error message</source>
        <translation>错误信息</translation>
    </message>
    <message>
        <source>Dismiss error</source>
        <translation>关闭错误提示</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
</context>
<context>
    <name>FolderEdit</name>
    <message>
        <source>Browse for {0}</source>
        <translation>为“{0}”浏览</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Choose a folder</source>
        <translation>选择文件夹</translation>
    </message>
</context>
<context>
    <name>LibraryPanel</name>
    <message>
        <source>Library</source>
        <translation>模型库</translation>
    </message>
    <message>
        <source>The longest context the model was trained for. A chat uses the context set in Settings (or the model&apos;s or the conversation&apos;s own), which is often shorter to save memory.</source>
        <translation>模型训练时支持的最长上下文。聊天使用设置中（或该模型、该对话自己）设定的上下文，为节省内存通常更短。</translation>
    </message>
    <message>
        <source>Chat with this model</source>
        <translation>与此模型聊天</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Add file or folder…</source>
        <translation>添加文件或文件夹…</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>estimating memory</source>
        <translation>估算内存</translation>
    </message>
    <message>
        <source>listing models</source>
        <translation>列出模型</translation>
    </message>
    <message>
        <source>reads images</source>
        <translation>能读图片</translation>
    </message>
    <message>
        <source>Choose a model in the library first.</source>
        <translation>请先在模型库中选择一个模型。</translation>
    </message>
    <message>
        <source>Delete model</source>
        <translation>删除模型</translation>
    </message>
    <message>
        <source>Delete {0} ({1}) from disk?</source>
        <translation>从磁盘删除 {0}（{1}）？</translation>
    </message>
    <message>
        <source>deleting the model</source>
        <translation>删除模型</translation>
    </message>
    <message>
        <source>Add a GGUF model</source>
        <translation>添加 GGUF 模型</translation>
    </message>
</context>
<context>
    <name>LoadedModelsDialog</name>
    <message>
        <source>Loaded models</source>
        <translation>已加载的模型</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Used by</source>
        <translation>使用者</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>Unloads</source>
        <translation>卸载时间</translation>
    </message>
    <message>
        <source>Models loaded for the API leave after the time set in Settings without requests, or sooner when another needs their memory. Memory is measured; GPU memory is estimated.</source>
        <translation>为 API 加载的模型在设置中规定的时间内没有请求后会被卸载；当其他模型需要内存时会更早卸载。内存为实测值，显存为估计值。</translation>
    </message>
    <message>
        <source>Unload</source>
        <translation>卸载</translation>
    </message>
    <message>
        <source>Unload {0}</source>
        <translation>卸载 {0}</translation>
    </message>
    <message>
        <source>It is answering; unload it when it is done.</source>
        <translation>它正在回答，请在完成后再卸载。</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>没有加载模型。</translation>
    </message>
    <message>
        <source>One model loaded, {0}.</source>
        <translation>已加载 1 个模型，{0}。</translation>
    </message>
    <message>
        <source>{0} models loaded, {1} in all.</source>
        <translation>已加载 {0} 个模型，共 {1}。</translation>
    </message>
    <message>
        <source>answering</source>
        <translation>正在回答</translation>
    </message>
    <message>
        <source>answering ({0} of {1} at once)</source>
        <translation>正在回答（同时 {0}/{1} 个）</translation>
    </message>
    <message>
        <source>, {0} waiting</source>
        <translation>，{0} 个等待中</translation>
    </message>
    <message>
        <source>while chosen</source>
        <translation>选中期间保留</translation>
    </message>
    <message>
        <source>in {0}:{1:02d}</source>
        <translation>{0}:{1:02d} 后</translation>
    </message>
    <message>
        <source>{0} is answering a request; unload it when it is done.</source>
        <translation>{0} 正在回答请求，请在完成后再卸载。</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Hearth</source>
        <translation>Hearth 炉边</translation>
    </message>
    <message>
        <source>Screens</source>
        <translation>界面</translation>
    </message>
    <message>
        <source>Chat</source>
        <translation>聊天</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>System</source>
        <translation>系统</translation>
    </message>
    <message>
        <source>Documents</source>
        <translation>文档</translation>
    </message>
    <message>
        <source>{0} access token</source>
        <translation>{0} 访问令牌</translation>
    </message>
    <message>
        <source>This needs a {0} access token. Paste it here; it is kept in the system keyring. Leave it empty to remove a saved token.</source>
        <translation>这需要 {0} 访问令牌。请粘贴到这里；它会保存在系统钥匙串中。留空则删除已保存的令牌。</translation>
    </message>
    <message>
        <source>saving the token</source>
        <translation>保存令牌</translation>
    </message>
    <message>
        <source>About Hearth</source>
        <translation>关于 Hearth</translation>
    </message>
    <message>
        <source>&lt;b&gt;Hearth {0}&lt;/b&gt;&lt;br&gt;Private, offline chat with open language models.&lt;br&gt;&lt;br&gt;Data folder: {1}</source>
        <translation>&lt;b&gt;Hearth {0}&lt;/b&gt;&lt;br&gt;与开源语言模型进行私密、离线的对话。&lt;br&gt;&lt;br&gt;数据文件夹：{1}</translation>
    </message>
</context>
<context>
    <name>MarkdownRenderer</name>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>image</source>
        <translation>图片</translation>
    </message>
    <message>
        <source>[image: {0}]</source>
        <translation>[图片：{0}]</translation>
    </message>
</context>
<context>
    <name>MessageDocuments</name>
    <message>
        <source>Reading your documents…</source>
        <translation>正在读取你的文档…</translation>
    </message>
    <message>
        <source>Your message was not sent: another conversation was opened while your documents were read. It is still in the message box.</source>
        <translation>你的消息没有发送：读取文档时打开了另一个对话。消息仍在输入框中。</translation>
    </message>
    <message>
        <source>reading your documents</source>
        <translation>读取你的文档</translation>
    </message>
    <message>
        <source>saving the conversation settings</source>
        <translation>保存对话设置</translation>
    </message>
</context>
<context>
    <name>ModelBar</name>
    <message>
        <source>Starting the engine</source>
        <translation>正在启动引擎</translation>
    </message>
    <message>
        <source>Reading the model file</source>
        <translation>正在读取模型文件</translation>
    </message>
    <message>
        <source>Preparing the chat template</source>
        <translation>正在准备对话模板</translation>
    </message>
    <message>
        <source>Reading the tokenizer</source>
        <translation>正在读取分词器</translation>
    </message>
    <message>
        <source>Loading the weights</source>
        <translation>正在加载权重</translation>
    </message>
    <message>
        <source>Connecting to the server</source>
        <translation>正在连接服务器</translation>
    </message>
    <message>
        <source>Reading the prompt</source>
        <translation>正在读取提示</translation>
    </message>
    <message>
        <source>Waiting for a free slot</source>
        <translation>正在等待空闲的回复位</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>on the GPU</source>
        <translation>在 GPU 上</translation>
    </message>
    <message>
        <source>partly on the GPU</source>
        <translation>部分在 GPU 上</translation>
    </message>
    <message>
        <source>on the CPU</source>
        <translation>在 CPU 上</translation>
    </message>
    <message>
        <source>too large here</source>
        <translation>在此太大</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Open model file…</source>
        <translation>打开模型文件…</translation>
    </message>
    <message>
        <source>Model settings…</source>
        <translation>模型设置…</translation>
    </message>
    <message>
        <source>Engine, GPU layers, threads and context for this model</source>
        <translation>此模型的引擎、GPU 层数、线程数和上下文</translation>
    </message>
    <message>
        <source>Instructions…</source>
        <translation>指令…</translation>
    </message>
    <message>
        <source>System prompt, preset and reply settings of this conversation</source>
        <translation>此对话的系统提示词、预设和回复设置</translation>
    </message>
    <message>
        <source>Model loading progress</source>
        <translation>模型加载进度</translation>
    </message>
    <message>
        <source>Finding models…</source>
        <translation>正在查找模型…</translation>
    </message>
    <message>
        <source>listing models</source>
        <translation>列出模型</translation>
    </message>
    <message>
        <source>choosing a model</source>
        <translation>选择模型</translation>
    </message>
    <message>
        <source>No model</source>
        <translation>没有模型</translation>
    </message>
    <message>
        <source>reads images</source>
        <translation>能读图片</translation>
    </message>
    <message>
        <source>demo model</source>
        <translation>演示模型</translation>
    </message>
    <message>
        <source>loaded</source>
        <translation>已加载</translation>
    </message>
    <message>
        <source>loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>Open a GGUF model</source>
        <translation>打开 GGUF 模型</translation>
    </message>
    <message>
        <source>This file cannot be used as a model: {0} Choose another file or model.</source>
        <translation>此文件不能用作模型：{0} 请选择其他文件或模型。</translation>
    </message>
    <message>
        <source>reading the model file</source>
        <translation>读取模型文件</translation>
    </message>
    <message>
        <source>{0} cannot be used: {1}</source>
        <translation>{0} 无法使用：{1}</translation>
    </message>
    <message>
        <source>saving the model choice</source>
        <translation>保存所选模型</translation>
    </message>
    <message>
        <source>Not loaded</source>
        <translation>未加载</translation>
    </message>
    <message>
        <source>loading the model</source>
        <translation>加载模型</translation>
    </message>
    <message>
        <source>Unloaded {0}</source>
        <translation>已卸载 {0}</translation>
    </message>
    <message>
        <source>The model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>{0} could not be loaded. {1}</source>
        <translation>{0} 无法加载。{1}</translation>
    </message>
    <message>
        <source>{0} · {1} tokens context</source>
        <translation>{0} · 上下文 {1} 个 token</translation>
    </message>
    <message>
        <source>Choose a model first.</source>
        <translation>请先选择模型。</translation>
    </message>
</context>
<context>
    <name>ModelSettingsDialog</name>
    <message>
        <source>Settings for {0}</source>
        <translation>{0} 的设置</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>Engine</source>
        <translation>引擎</translation>
    </message>
    <message>
        <source>Image projector</source>
        <translation>图像投影器</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>not on this computer</source>
        <translation>这台电脑上没有</translation>
    </message>
    <message>
        <source>not checked yet</source>
        <translation>尚未检查</translation>
    </message>
    <message>
        <source>{0} — unavailable: {1}</source>
        <translation>{0} — 不可用：{1}</translation>
    </message>
    <message>
        <source>The estimate appears once the system check has run.</source>
        <translation>系统检查完成后会显示估算。</translation>
    </message>
    <message>
        <source>On this machine at {0} tokens: {1}, about {2:.1f} GB. Hearth would use {3} GPU layers and {4} threads.</source>
        <translation>在本机上以 {0} 个 token 的上下文：{1}，约 {2:.1f} GB。Hearth 将使用 {3} 个 GPU 层和 {4} 个线程。</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>It writes {0} replies at once, each with a context of {1} tokens of its own: the memory for the context is counted {0} times.</source>
        <translation>它同时撰写 {0} 个回复，每个回复都有自己的 {1} 个词元的上下文：上下文所需内存按 {0} 份计算。</translation>
    </message>
    <message>
        <source>Not saved: {0}.</source>
        <translation>未保存：{0}。</translation>
    </message>
    <message>
        <source>saving the model&apos;s settings</source>
        <translation>保存模型设置</translation>
    </message>
</context>
<context>
    <name>ModelsScreen</name>
    <message>
        <source>Most downloaded</source>
        <translation>下载最多</translation>
    </message>
    <message>
        <source>Most liked</source>
        <translation>点赞最多</translation>
    </message>
    <message>
        <source>Recently updated</source>
        <translation>最近更新</translation>
    </message>
    <message>
        <source>GGUF (llama.cpp)</source>
        <translation>GGUF（llama.cpp）</translation>
    </message>
    <message>
        <source>Transformers checkpoints</source>
        <translation>Transformers 检查点</translation>
    </message>
    <message>
        <source>Bundled</source>
        <translation>内置</translation>
    </message>
    <message>
        <source>Added by you</source>
        <translation>你添加的</translation>
    </message>
    <message>
        <source>Opened file</source>
        <translation>打开的文件</translation>
    </message>
    <message>
        <source>Recommended for this machine</source>
        <translation>推荐用于本机</translation>
    </message>
    <message>
        <source>Recommended</source>
        <translation>推荐</translation>
    </message>
    <message>
        <source>fits on the GPU</source>
        <translation>完全放入 GPU</translation>
    </message>
    <message>
        <source>partly on the GPU</source>
        <translation>部分在 GPU 上</translation>
    </message>
    <message>
        <source>CPU and RAM</source>
        <translation>CPU 和内存</translation>
    </message>
    <message>
        <source>will not fit</source>
        <translation>放不下</translation>
    </message>
    <message>
        <source>partly on the GPU ({0} of {1} layers)</source>
        <translation>部分在 GPU 上（{1} 层中的 {0} 层）</translation>
    </message>
    <message>
        <source>under 1 token/s</source>
        <translation>每秒不到 1 个 token</translation>
    </message>
    <message>
        <source>roughly {0} tokens/s</source>
        <translation>每秒约 {0} 个 token</translation>
    </message>
    <message>
        <source>Weights {0:.2f} GB, KV cache {1:.2f} GB, overhead {2:.2f} GB at {3} tokens of context.</source>
        <translation>权重 {0:.2f} GB，KV 缓存 {1:.2f} GB，额外开销 {2:.2f} GB（上下文 {3} 个 token）。</translation>
    </message>
    <message>
        <source>Expected speed: {0}.</source>
        <translation>预计速度：{0}。</translation>
    </message>
    <message>
        <source>saving the mirror address</source>
        <translation>保存镜像地址</translation>
    </message>
    <message>
        <source>My models</source>
        <translation>我的模型</translation>
    </message>
    <message>
        <source>Discover</source>
        <translation>发现</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Kind of model</source>
        <translation>模型类型</translation>
    </message>
    <message>
        <source>Sort by</source>
        <translation>排序方式</translation>
    </message>
    <message>
        <source>Search models</source>
        <translation>搜索模型</translation>
    </message>
    <message>
        <source>Search models, or type a repository id (owner/name)</source>
        <translation>搜索模型，或输入仓库 ID（所有者/名称）</translation>
    </message>
    <message>
        <source>Search</source>
        <translation>搜索</translation>
    </message>
    <message>
        <source>Open id</source>
        <translation>打开 ID</translation>
    </message>
    <message>
        <source>Open the repository typed in the box (owner/name)</source>
        <translation>打开框中输入的仓库（所有者/名称）</translation>
    </message>
    <message>
        <source>In mainland China, ModelScope (chosen above) or a Hugging Face mirror is usually much faster than huggingface.co.</source>
        <translation>在中国大陆，ModelScope（已在上方选中）或 Hugging Face 镜像通常比 huggingface.co 快得多。</translation>
    </message>
    <message>
        <source>Use the hf-mirror.com mirror</source>
        <translation>使用 hf-mirror.com 镜像</translation>
    </message>
    <message>
        <source>Sets the Hugging Face address in Settings to https://hf-mirror.com</source>
        <translation>把设置中的 Hugging Face 地址设为 https://hf-mirror.com</translation>
    </message>
    <message>
        <source>Repository</source>
        <translation>仓库</translation>
    </message>
    <message>
        <source>Downloads</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>Likes</source>
        <translation>点赞</translation>
    </message>
    <message>
        <source>Updated</source>
        <translation>更新时间</translation>
    </message>
    <message>
        <source>Search results</source>
        <translation>搜索结果</translation>
    </message>
    <message>
        <source>Open a repository to see what it offers.</source>
        <translation>打开一个仓库，查看它提供的文件。</translation>
    </message>
    <message>
        <source>Choice</source>
        <translation>选项</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>My models · {0} downloading</source>
        <translation>我的模型 · {0} 个正在下载</translation>
    </message>
    <message>
        <source>Searching {0}…</source>
        <translation>正在搜索 {0}…</translation>
    </message>
    <message>
        <source>Meanwhile, {0} models of Hearth&apos;s catalogue match “{1}”: they are shown below.</source>
        <translation>与此同时，Hearth 目录中有 {0} 个模型匹配“{1}”，显示在下方。</translation>
    </message>
    <message>
        <source>Listing the files of {0}…</source>
        <translation>正在列出 {0} 的文件…</translation>
    </message>
    <message>
        <source>Could not open {0} (the reason is above).</source>
        <translation>无法打开 {0}（原因见上方）。</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Fits here?</source>
        <translation>本机能运行吗？</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>Files in this repository</source>
        <translation>此仓库中的文件</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数量</translation>
    </message>
    <message>
        <source>Quantization</source>
        <translation>量化</translation>
    </message>
    <message>
        <source>Trained context</source>
        <translation>训练上下文</translation>
    </message>
    <message>
        <source>From</source>
        <translation>来自</translation>
    </message>
    <message>
        <source>searching models</source>
        <translation>搜索模型</translation>
    </message>
    <message>
        <source>No models matched. Try other words, or another source.</source>
        <translation>没有匹配的模型。请换个关键词或换个来源。</translation>
    </message>
    <message>
        <source>A repository id looks like owner/name.</source>
        <translation>仓库 ID 的格式为 所有者/名称。</translation>
    </message>
    <message>
        <source>Opening {0}…</source>
        <translation>正在打开 {0}…</translation>
    </message>
    <message>
        <source>opening the repository</source>
        <translation>打开仓库</translation>
    </message>
    <message>
        <source> · reads images</source>
        <translation> · 能读图片</translation>
    </message>
    <message>
        <source>estimating the memory of the files</source>
        <translation>估算这些文件所需的内存</translation>
    </message>
    <message>
        <source>Choose what to download first.</source>
        <translation>请先选择要下载的内容。</translation>
    </message>
    <message>
        <source>starting the download</source>
        <translation>开始下载</translation>
    </message>
</context>
<context>
    <name>Phrase</name>
    <message>
        <source>The model could not be loaded: {0}</source>
        <translation>模型无法加载：{0}</translation>
    </message>
    <message>
        <source>The port must be between 1 and 65535, not {0}.</source>
        <translation>端口必须在 1 到 65535 之间，而不是 {0}。</translation>
    </message>
    <message>
        <source>The API server could not start on {0}:{1} (is the port in use?).</source>
        <translation>API 服务器无法在 {0}:{1} 上启动（端口是否已被占用？）。</translation>
    </message>
    <message>
        <source>The prompt is empty. Pass it as an argument or on stdin.</source>
        <translation>提示词为空。请作为参数或通过标准输入传入。</translation>
    </message>
    <message>
        <source>{0} must be between {1} and {2}, not {3}.</source>
        <translation>{0} 必须在 {1} 到 {2} 之间，而不是 {3}。</translation>
    </message>
    <message>
        <source>No model called {0!r}; see &apos;hearth models list&apos;.</source>
        <translation>没有名为 {0!r} 的模型；请查看 “hearth models list”。</translation>
    </message>
    <message>
        <source>Add --yes to delete without being asked.</source>
        <translation>加上 --yes 可不经询问直接删除。</translation>
    </message>
    <message>
        <source>Hearth found no model to use. Reinstall Hearth to restore the starter model, or put a .gguf file into {0}.</source>
        <translation>Hearth 没有找到可用的模型。请重新安装 Hearth 以恢复内置模型，或把 .gguf 文件放入 {0}。</translation>
    </message>
    <message>
        <source>{0} cannot be used: {1}</source>
        <translation>{0} 无法使用：{1}</translation>
    </message>
    <message>
        <source>The server endpoint {0!r} is no longer configured.</source>
        <translation>服务器端点 {0!r} 已不再配置。</translation>
    </message>
    <message>
        <source>Hearth cannot use its data folder {0}: {1}. Choose another with --data-dir or HEARTH_DATA_DIR.</source>
        <translation>Hearth 无法使用数据文件夹 {0}：{1}。请用 --data-dir 或 HEARTH_DATA_DIR 另选一个。</translation>
    </message>
    <message>
        <source>{0} is already being downloaded by another Hearth; wait for it to finish.</source>
        <translation>{0} 正由另一个 Hearth 下载；请等待其完成。</translation>
    </message>
    <message>
        <source>The download of {0} was damaged ({1}), so Hearth deleted it. Try again; if it happens again the mirror may be serving a bad copy.</source>
        <translation>{0} 的下载已损坏（{1}），Hearth 已将其删除。请重试；如果再次发生，可能是镜像提供了损坏的副本。</translation>
    </message>
    <message>
        <source>{0} lists a file Hearth will not write: {1}.</source>
        <translation>{0} 列出了一个 Hearth 不会写入的文件：{1}。</translation>
    </message>
    <message>
        <source>An endpoint needs a name and an address starting with http:// or https://.</source>
        <translation>端点需要一个名称，以及以 http:// 或 https:// 开头的地址。</translation>
    </message>
    <message>
        <source>exit code {0}</source>
        <translation>退出码 {0}</translation>
    </message>
    <message>
        <source>signal {0}</source>
        <translation>信号 {0}</translation>
    </message>
    <message>
        <source>no exit code</source>
        <translation>无退出码</translation>
    </message>
    <message>
        <source>The model engine stopped unexpectedly ({0}). What was written so far was kept; send a message to start the engine again.</source>
        <translation>模型引擎意外停止（{0}）。已写出的内容已保留；发送消息即可重新启动引擎。</translation>
    </message>
    <message>
        <source>The engine belongs to another version of Hearth. Reinstall Hearth.</source>
        <translation>引擎属于另一个版本的 Hearth。请重新安装 Hearth。</translation>
    </message>
    <message>
        <source>Something went wrong while {0}: {1}.{2}</source>
        <translation>{0}时出错：{1}。{2}</translation>
    </message>
    <message>
        <source>The disk is full, so Hearth could not finish {0}. Free some space and try again; nothing that was already saved has been lost.</source>
        <translation>磁盘已满，Hearth 无法完成{0}。请释放一些空间后重试；已保存的内容都没有丢失。</translation>
    </message>
    <message>
        <source>Hearth could not finish {0}: {1}{2}.</source>
        <translation>Hearth 无法完成{0}：{1}{2}。</translation>
    </message>
    <message>
        <source> Details are in {0}.</source>
        <translation>详细信息在 {0} 中。</translation>
    </message>
    <message>
        <source>Hearth cannot estimate {0}: {1}.</source>
        <translation>Hearth 无法估算 {0}：{1}。</translation>
    </message>
    <message>
        <source>the header uses an unknown value type ({0})</source>
        <translation>文件头使用了未知的值类型（{0}）</translation>
    </message>
    <message>
        <source>{0} is truncated: {1:,} bytes of model data are missing (an incomplete download?)</source>
        <translation>{0} 不完整：缺少 {1:,} 字节的模型数据（下载未完成？）</translation>
    </message>
    <message>
        <source>the file ends in the middle of its header (an incomplete download?)</source>
        <translation>文件在文件头中途结束（下载未完成？）</translation>
    </message>
    <message>
        <source>the header claims an impossible number of entries</source>
        <translation>文件头声明的条目数量不可能成立</translation>
    </message>
    <message>
        <source>the header holds an impossibly long string</source>
        <translation>文件头包含长度不可能成立的字符串</translation>
    </message>
    <message>
        <source>{0} does not exist</source>
        <translation>{0} 不存在</translation>
    </message>
    <message>
        <source>{0} cannot be read ({1})</source>
        <translation>{0} 无法读取（{1}）</translation>
    </message>
    <message>
        <source>{0} is empty</source>
        <translation>{0} 是空文件</translation>
    </message>
    <message>
        <source>{0} is not a GGUF model file</source>
        <translation>{0} 不是 GGUF 模型文件</translation>
    </message>
    <message>
        <source>{0} uses GGUF version {1}, which is not supported</source>
        <translation>{0} 使用 GGUF 版本 {1}，该版本不受支持</translation>
    </message>
    <message>
        <source>{0} has a damaged tensor table</source>
        <translation>{0} 的张量表已损坏</translation>
    </message>
    <message>
        <source>NVIDIA GPUs: nvidia-ml-py is not installed.</source>
        <translation>NVIDIA GPU：未安装 nvidia-ml-py。</translation>
    </message>
    <message>
        <source>NVIDIA GPUs: no driver found ({0}).</source>
        <translation>NVIDIA GPU：未找到驱动（{0}）。</translation>
    </message>
    <message>
        <source>NVIDIA GPUs: NVML failed ({0}).</source>
        <translation>NVIDIA GPU：NVML 出错（{0}）。</translation>
    </message>
    <message>
        <source>GPU {0} could not be read ({1}).</source>
        <translation>无法读取 GPU {0}（{1}）。</translation>
    </message>
    <message>
        <source>The hub request for {0} failed: {1}</source>
        <translation>对 {0} 的模型中心请求失败：{1}</translation>
    </message>
    <message>
        <source>Hearth could not reach the hub for {0}: check the network or the hub address in the settings (a mirror may help).</source>
        <translation>Hearth 无法连接模型中心获取 {0}：请检查网络或设置中的中心地址（镜像可能有帮助）。</translation>
    </message>
    <message>
        <source>The ModelScope request for {0} failed: {1}</source>
        <translation>对 {0} 的 ModelScope 请求失败：{1}</translation>
    </message>
    <message>
        <source>{0} needs a ModelScope access token: File › ModelScope token…, or MODELSCOPE_API_TOKEN for the command line.</source>
        <translation>{0} 需要 ModelScope 访问令牌：文件 › ModelScope 令牌…，命令行可用 MODELSCOPE_API_TOKEN。</translation>
    </message>
    <message>
        <source>{0} was not found on ModelScope.</source>
        <translation>在 ModelScope 上找不到 {0}。</translation>
    </message>
    <message>
        <source>Hearth could not reach ModelScope for {0}: check the network or the ModelScope address in the settings.</source>
        <translation>Hearth 无法连接 ModelScope 获取 {0}：请检查网络或设置中的 ModelScope 地址。</translation>
    </message>
    <message>
        <source>The hub did not send the model header ({0}).</source>
        <translation>模型中心没有发送模型文件头（{0}）。</translation>
    </message>
    <message>
        <source>The model header is incomplete: {0}.</source>
        <translation>模型文件头不完整：{0}。</translation>
    </message>
    <message>
        <source>The model header cannot be read: {0}.</source>
        <translation>无法读取模型文件头：{0}。</translation>
    </message>
    <message>
        <source>refusing the file name {0!r}</source>
        <translation>拒绝文件名 {0!r}</translation>
    </message>
    <message>
        <source>refusing the absolute file name {0!r}</source>
        <translation>拒绝绝对路径文件名 {0!r}</translation>
    </message>
    <message>
        <source>refusing the file name {0!r}: it leaves the model folder</source>
        <translation>拒绝文件名 {0!r}：它指向模型文件夹之外</translation>
    </message>
    <message>
        <source>{0} belongs to {1}; Hearth only deletes models it downloaded itself.</source>
        <translation>{0} 属于 {1}；Hearth 只删除自己下载的模型。</translation>
    </message>
    <message>
        <source>{0}.</source>
        <translation>{0}。</translation>
    </message>
    <message>
        <source>{0} has no readable config.json ({1}).</source>
        <translation>{0} 没有可读的 config.json（{1}）。</translation>
    </message>
    <message>
        <source>{0} has no GGUF file or transformers checkpoint that Hearth can use. Name files with --file.</source>
        <translation>{0} 没有 Hearth 能使用的 GGUF 文件或 transformers 检查点。请用 --file 指定文件。</translation>
    </message>
    <message>
        <source>No file in {0} matches {1!r}. It has: {2}.</source>
        <translation>{0} 中没有文件匹配 {1!r}。其中有：{2}。</translation>
    </message>
    <message>
        <source>Hearth could not store the token in the system keyring ({0}). Set {1} in the environment instead.</source>
        <translation>Hearth 无法把令牌保存到系统钥匙串（{0}）。请改为在环境变量中设置 {1}。</translation>
    </message>
    <message>
        <source>This file is neither a Hearth conversation export nor a list of chat messages.</source>
        <translation>此文件既不是 Hearth 导出的对话，也不是聊天消息列表。</translation>
    </message>
    <message>
        <source>presets</source>
        <translation>预设</translation>
    </message>
    <message>
        <source>saving the reply</source>
        <translation>保存回复</translation>
    </message>
    <message>
        <source>saving your message</source>
        <translation>保存你的消息</translation>
    </message>
    <message>
        <source>Wait for the reply to finish (or press Stop) first.</source>
        <translation>请先等待回复完成（或按“停止”）。</translation>
    </message>
    <message>
        <source>Choose a model first: pick one above, or open a .gguf file.</source>
        <translation>请先选择模型：在上方选择一个，或打开 .gguf 文件。</translation>
    </message>
    <message>
        <source>That message belongs to another conversation.</source>
        <translation>那条消息属于另一个对话。</translation>
    </message>
    <message>
        <source>This chat history was written by a newer version of Hearth. Update Hearth to open it; it has not been changed.</source>
        <translation>此聊天记录由更新版本的 Hearth 写入。请更新 Hearth 后再打开；它没有被改动。</translation>
    </message>
    <message>
        <source>This conversation was exported by a newer Hearth.</source>
        <translation>此对话由更新版本的 Hearth 导出。</translation>
    </message>
    <message>
        <source>The conversation file is damaged (its messages are unreadable).</source>
        <translation>对话文件已损坏（消息无法读取）。</translation>
    </message>
    <message>
        <source>The conversation file is damaged (a message has no parent).</source>
        <translation>对话文件已损坏（有消息缺少上一条）。</translation>
    </message>
    <message>
        <source>Hearth cannot open its chat history ({0}). It has not been changed; check that the data folder is writable and that the disk is not full.</source>
        <translation>Hearth 无法打开聊天记录（{0}）。它没有被改动；请检查数据文件夹是否可写、磁盘是否已满。</translation>
    </message>
    <message>
        <source>Hearth found damage in the indexes of your chat history and rebuilt them; nothing was lost.</source>
        <translation>Hearth 发现聊天记录的索引已损坏，并已重建；没有丢失任何内容。</translation>
    </message>
    <message>
        <source>Your chat history was damaged. Hearth saved everything that could still be read ({0} conversation(s), {1} message(s)) into a new history and kept the damaged file as {2} in its data folder.</source>
        <translation>聊天记录已损坏。Hearth 已将仍可读取的全部内容（{0} 个对话、{1} 条消息）保存到新的记录中，并将损坏的文件保留为数据文件夹中的 {2}。</translation>
    </message>
    <message>
        <source>Part of your chat history was damaged, but all of it could still be read: Hearth copied its {0} conversation(s) and {1} message(s) into a new history and kept the damaged file as {2} in its data folder.</source>
        <translation>聊天记录有部分损坏，但全部内容仍可读取：Hearth 已将其中 {0} 个对话和 {1} 条消息复制到新的记录中，并将损坏的文件保留为数据文件夹中的 {2}。</translation>
    </message>
    <message>
        <source>the system prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>your message</source>
        <translation>您的消息</translation>
    </message>
    <message>
        <source>Part of {0} was not UTF-8 text: {1} character(s) that could not be read were replaced with �.</source>
        <translation>{0}中有部分内容不是 UTF-8 文本：{1} 个无法读取的字符已替换为 �。</translation>
    </message>
    <message>
        <source>The model engine could not be started: {0}</source>
        <translation>无法启动模型引擎：{0}</translation>
    </message>
    <message>
        <source>Your chat history is damaged. Close the other Hearth windows and commands that use it, then start Hearth again: it will save what can be read.</source>
        <translation>聊天记录已损坏。请关闭正在使用它的其他 Hearth 窗口和命令，然后重新启动 Hearth：它会保存仍可读取的内容。</translation>
    </message>
    <message>
        <source>Your chat history could not be opened (the file is damaged). Hearth kept the old file as {0} in its data folder and started a new history.</source>
        <translation>无法打开聊天记录（文件已损坏）。Hearth 已将旧文件保留为数据文件夹中的 {0}，并开始了新的记录。</translation>
    </message>
    <message>
        <source>Your chat history is damaged and Hearth could not repair it now ({0}). It has not been changed; check that the disk is not full, then start Hearth again.</source>
        <translation>聊天记录已损坏，Hearth 目前无法修复（{0}）。记录没有被改动；请检查磁盘是否已满，然后重新启动 Hearth。</translation>
    </message>
    <message>
        <source>The API key file {0} is empty.</source>
        <translation>API 密钥文件 {0} 是空的。</translation>
    </message>
    <message>
        <source>There is no conversation {0} in Hearth&apos;s history.</source>
        <translation>Hearth 的历史记录中没有对话 {0}。</translation>
    </message>
    <message>
        <source>Hearth could not save {0} as the model to use next time ({1}).</source>
        <translation>Hearth 无法将 {0} 保存为下次使用的模型（{1}）。</translation>
    </message>
    <message>
        <source>The API key file {0} cannot be read ({1}).</source>
        <translation>无法读取 API 密钥文件 {0}（{1}）。</translation>
    </message>
    <message>
        <source>The model engine stopped unexpectedly ({0}) before the model answered. If this happens again, the model file may be damaged or too large for this computer: choose another model or a shorter context.</source>
        <translation>模型引擎在模型回答之前意外停止（{0}）。如果再次发生，模型文件可能已损坏，或对这台电脑来说太大：请选择其他模型或更短的上下文。</translation>
    </message>
    <message>
        <source>This conversation is too long to send to the model ({0} MB; at most {1} MB can be sent). Start a new conversation, or send a shorter message.</source>
        <translation>此对话太长，无法发送给模型（{0} MB；最多可发送 {1} MB）。请开始新的对话，或发送更短的消息。</translation>
    </message>
    <message>
        <source>The model engine stopped ({0}, an illegal instruction): the {1} build of llama.cpp uses processor instructions that this computer, or the virtual machine it runs in, does not allow. Hearth now uses another llama.cpp runtime for this model; anything already written was kept.</source>
        <translation>模型引擎已停止（{0}，非法指令）：llama.cpp 的 {1} 构建使用了这台电脑（或其所在的虚拟机）不允许的处理器指令。Hearth 现在为此模型改用另一个 llama.cpp 运行时；已写出的内容均已保留。</translation>
    </message>
    <message>
        <source>the engine stopped ({0})</source>
        <translation>引擎已停止（{0}）</translation>
    </message>
    <message>
        <source>The {0} runtime could not load the model ({1}); trying the next one.</source>
        <translation>{0} 运行时无法加载该模型（{1}）；正在尝试下一个。</translation>
    </message>
    <message>
        <source>The document index was damaged and has been set aside as {0}; searches find nothing until the collections are indexed again: {1}</source>
        <translation>文档索引已损坏，已另存为 {0}；在重新索引文档集之前，搜索不会有任何结果：{1}</translation>
    </message>
    <message>
        <source>there are no collections to index</source>
        <translation>没有需要索引的文档集</translation>
    </message>
    <message>
        <source>The model engine grew to {0} GB of memory, far more than its model needs, so Hearth stopped it before the computer ran out. {1} The engine starts again with the next request.</source>
        <translation>模型引擎占用的内存增长到 {0} GB，远超其模型所需，Hearth 在电脑内存耗尽之前将其停止。{1}下一个请求会重新启动引擎。</translation>
    </message>
    <message>
        <source>No engine runs models of the format {0!r}.</source>
        <translation>没有引擎能运行格式为 {0!r} 的模型。</translation>
    </message>
    <message>
        <source>{0} must be one of {1}</source>
        <translation>{0} 必须是以下之一：{1}</translation>
    </message>
    <message>
        <source>{0} must be true or false</source>
        <translation>{0} 必须为是或否</translation>
    </message>
    <message>
        <source>{0} must be a whole number</source>
        <translation>{0} 必须是整数</translation>
    </message>
    <message>
        <source>{0} must be between {1} and {2}</source>
        <translation>{0} 必须介于 {1} 和 {2} 之间</translation>
    </message>
    <message>
        <source>download list</source>
        <translation>下载列表</translation>
    </message>
    <message>
        <source>Not enough disk space for {0}: it needs {1} more (the rest of the file and {2} that Hearth keeps free so the disk never fills up), and {3} are free in {4}.</source>
        <translation>{0} 所需的磁盘空间不足：还需要 {1}（文件的剩余部分，以及 Hearth 为避免磁盘被占满而保留的 {2}），而 {4} 中只有 {3} 可用。</translation>
    </message>
    <message>
        <source>No file of {0} fits this machine&apos;s memory; it may not run here.</source>
        <translation>{0} 中没有适合本机内存的文件；它可能无法在这里运行。</translation>
    </message>
    <message>
        <source>{0}: {1}</source>
        <translation>{0}：{1}</translation>
    </message>
    <message>
        <source>You are offline (Hearth cannot reach Hugging Face or ModelScope): connect to the internet to download {0}.</source>
        <translation>你已离线（Hearth 无法访问 Hugging Face 或 ModelScope）：请连接互联网后再下载 {0}。</translation>
    </message>
    <message>
        <source>{0} It is not a model of Hearth&apos;s catalogue either (hearth models catalog lists them).</source>
        <translation>{0} 它也不是 Hearth 目录中的模型（hearth models catalog 可列出它们）。</translation>
    </message>
    <message>
        <source>Your {0} could not be read (the file was damaged), so Hearth uses the defaults. The damaged file was kept as {1}.</source>
        <translation>无法读取你的{0}（文件已损坏），Hearth 将使用默认值。损坏的文件已保留为 {1}。</translation>
    </message>
    <message>
        <source>Hearth could not read its {0} ({1}); it uses the defaults for now.</source>
        <translation>Hearth 无法读取其{0}（{1}）；暂时使用默认值。</translation>
    </message>
    <message>
        <source>{0} with a context of {1} tokens needs about {2} GB of memory, but about {3} GB can be used on this computer. Choose a shorter context or a smaller model, or turn off “Refuse models that will not fit” in the settings to try anyway.</source>
        <translation>{0} 在 {1} 个 token 的上下文下需要约 {2} GB 内存，但这台电脑上可用的约为 {3} GB。请选择更短的上下文或更小的模型，或在设置中关闭“拒绝装不下的模型”后仍然尝试。</translation>
    </message>
    <message>
        <source>{0} cannot be loaded: {1}. The file is damaged, or was made to crash the programs that read it.</source>
        <translation>无法加载 {0}：{1}。该文件已损坏，或是被故意制作成让读取它的程序崩溃。</translation>
    </message>
    <message>
        <source>{0}</source>
        <translation>{0}</translation>
    </message>
    <message>
        <source>GPU: {0}</source>
        <translation>GPU：{0}</translation>
    </message>
    <message>
        <source>Runs on the CPU.</source>
        <translation>在 CPU 上运行。</translation>
    </message>
    <message>
        <source>CPU: {0}</source>
        <translation>CPU：{0}</translation>
    </message>
    <message>
        <source>{0} physical / {1} logical cores; {2}.</source>
        <translation>{0} 个物理核心 / {1} 个逻辑核心；{2}。</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>{0} in total, {1} available now.</source>
        <translation>共 {0}，当前可用 {1}。</translation>
    </message>
    <message>
        <source>GPU {0}: {1}</source>
        <translation>GPU {0}：{1}</translation>
    </message>
    <message>
        <source>{0} VRAM ({1} free), driver {2}, supports CUDA {3}, compute capability {4}.</source>
        <translation>显存 {0}（可用 {1}），驱动 {2}，支持 CUDA {3}，计算能力 {4}。</translation>
    </message>
    <message>
        <source>Apple Silicon with Metal</source>
        <translation>Apple 芯片（Metal）</translation>
    </message>
    <message>
        <source>The GPU shares the computer&apos;s memory; llama.cpp uses Metal.</source>
        <translation>GPU 与电脑共享内存；llama.cpp 使用 Metal。</translation>
    </message>
    <message>
        <source>No GPU found</source>
        <translation>未找到 GPU</translation>
    </message>
    <message>
        <source>Hearth runs models on the CPU. Small models (up to about 3B parameters, Q4) are comfortable; larger ones are slow.{0}</source>
        <translation>Hearth 在 CPU 上运行模型。小模型（约 3B 参数以内，Q4）运行流畅；更大的模型会很慢。{0}</translation>
    </message>
    <message>
        <source>llama.cpp cannot use the GPU</source>
        <translation>llama.cpp 无法使用 GPU</translation>
    </message>
    <message>
        <source>The installed llama-cpp-python was built for the CPU only, so GGUF models will not use the GPU.</source>
        <translation>已安装的 llama-cpp-python 只为 CPU 构建，因此 GGUF 模型不会使用 GPU。</translation>
    </message>
    <message>
        <source>Rebuild it with CUDA: {0}</source>
        <translation>用 CUDA 重新构建：{0}</translation>
    </message>
    <message>
        <source>This CPU has no AVX2</source>
        <translation>此 CPU 不支持 AVX2</translation>
    </message>
    <message>
        <source>llama.cpp runs much slower without it.</source>
        <translation>没有它，llama.cpp 会慢很多。</translation>
    </message>
    <message>
        <source>Prefer small models, or a machine with a newer CPU.</source>
        <translation>请优先使用小模型，或换用 CPU 更新的电脑。</translation>
    </message>
    <message>
        <source>Too little memory for any model in the library</source>
        <translation>内存不足以运行模型库中的任何模型</translation>
    </message>
    <message>
        <source>The smallest needs about {0}.</source>
        <translation>最小的模型约需 {0}。</translation>
    </message>
    <message>
        <source>Download a smaller model or quantization (Q4_K_M of a 1–3B model).</source>
        <translation>请下载更小的模型或量化版本（1–3B 模型的 Q4_K_M）。</translation>
    </message>
    <message>
        <source>Little free disk space</source>
        <translation>磁盘剩余空间不足</translation>
    </message>
    <message>
        <source>{0} free where models are stored ({1}).</source>
        <translation>模型存放位置（{1}）剩余 {0}。</translation>
    </message>
    <message>
        <source>Free some space, or choose another models folder in Settings.</source>
        <translation>请释放一些空间，或在设置中选择其他模型文件夹。</translation>
    </message>
    <message>
        <source>llama.cpp can offload to the GPU</source>
        <translation>llama.cpp 可以把计算卸载到 GPU</translation>
    </message>
    <message>
        <source>no notable SIMD features found</source>
        <translation>未发现值得注意的 SIMD 特性</translation>
    </message>
    <message>
        <source>Transparent huge pages: always</source>
        <translation>透明大页：always</translation>
    </message>
    <message>
        <source>With memory-mapped models this can raise memory use and cause pauses.</source>
        <translation>对于内存映射的模型，这可能增加内存占用并造成卡顿。</translation>
    </message>
    <message>
        <source>vm.swappiness is {0}</source>
        <translation>vm.swappiness 为 {0}</translation>
    </message>
    <message>
        <source>The kernel may push model pages out to swap, which makes replies stutter.</source>
        <translation>内核可能把模型页面换出到交换区，导致回复断断续续。</translation>
    </message>
    <message>
        <source>{0} NUMA nodes</source>
        <translation>{0} 个 NUMA 节点</translation>
    </message>
    <message>
        <source>Memory-mapped models are fastest when the engine stays on one node.</source>
        <translation>引擎固定在一个节点上时，内存映射的模型最快。</translation>
    </message>
    <message>
        <source>Start Hearth with: {0}</source>
        <translation>这样启动 Hearth：{0}</translation>
    </message>
    <message>
        <source> ({0})</source>
        <translation>（{0}）</translation>
    </message>
    <message>
        <source>PyTorch is a CPU build</source>
        <translation>PyTorch 是 CPU 版本</translation>
    </message>
    <message>
        <source>An NVIDIA GPU is present, but PyTorch {0} was built without CUDA, so checkpoints would run on the CPU.</source>
        <translation>存在 NVIDIA GPU，但 PyTorch {0} 构建时未启用 CUDA，因此检查点会在 CPU 上运行。</translation>
    </message>
    <message>
        <source>Install a CUDA build that matches the driver: {0}</source>
        <translation>安装与驱动匹配的 CUDA 版本：{0}</translation>
    </message>
    <message>
        <source>The NVIDIA driver is too old for this PyTorch</source>
        <translation>NVIDIA 驱动对此 PyTorch 来说太旧</translation>
    </message>
    <message>
        <source>PyTorch {0} needs CUDA {1}; the driver supports up to CUDA {2}.</source>
        <translation>PyTorch {0} 需要 CUDA {1}；驱动最高支持 CUDA {2}。</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver, or install a matching PyTorch: {0}</source>
        <translation>请更新 NVIDIA 驱动，或安装匹配的 PyTorch：{0}</translation>
    </message>
    <message>
        <source>No bfloat16 on this GPU</source>
        <translation>此 GPU 不支持 bfloat16</translation>
    </message>
    <message>
        <source>Checkpoints will run in float16 instead.</source>
        <translation>检查点将改用 float16 运行。</translation>
    </message>
    <message>
        <source>PyTorch has no kernels for {0}</source>
        <translation>PyTorch 没有适用于 {0} 的内核</translation>
    </message>
    <message>
        <source>This PyTorch was compiled for {0}; the GPU needs {1}.</source>
        <translation>此 PyTorch 编译目标为 {0}；该 GPU 需要 {1}。</translation>
    </message>
    <message>
        <source>Install a newer PyTorch build: {0}</source>
        <translation>安装更新的 PyTorch 版本：{0}</translation>
    </message>
    <message>
        <source>server endpoints</source>
        <translation>服务器端点</translation>
    </message>
    <message>
        <source>{0} is not a regular file</source>
        <translation>{0} 不是普通文件</translation>
    </message>
    <message>
        <source>the header holds more strings than any model has</source>
        <translation>文件头包含的字符串比任何模型都多</translation>
    </message>
    <message>
        <source>the header holds more text than any model&apos;s</source>
        <translation>文件头包含的文本比任何模型都多</translation>
    </message>
    <message>
        <source>{0} has a damaged header</source>
        <translation>{0} 的文件头已损坏</translation>
    </message>
    <message>
        <source>{0} claims more tensors than any model has</source>
        <translation>{0} 声称的张量数量比任何模型都多</translation>
    </message>
    <message>
        <source>its header is larger than any model&apos;s</source>
        <translation>其文件头比任何模型的都大</translation>
    </message>
    <message>
        <source>A collection&apos;s name must be 1 to 80 characters without slashes or control characters; {0!r} is not.</source>
        <translation>文档集名称须为 1 到 80 个字符，且不含斜杠或控制字符；{0!r} 不符合。</translation>
    </message>
    <message>
        <source>document collections</source>
        <translation>文档集</translation>
    </message>
    <message>
        <source>There is no collection named {0}. Make it with: hearth docs add {0} FOLDER</source>
        <translation>没有名为 {0} 的文档集。可以这样新建：hearth docs add {0} 文件夹</translation>
    </message>
    <message>
        <source>The embedding model did not answer within {0} s.</source>
        <translation>嵌入模型在 {0} 秒内没有回应。</translation>
    </message>
    <message>
        <source>The embedding model failed: {0}</source>
        <translation>嵌入模型出错：{0}</translation>
    </message>
    <message>
        <source>The document index was damaged and has been set aside as {0}; your collections are being indexed again.</source>
        <translation>文档索引已损坏，已另存为 {0}；正在重新索引你的文档集。</translation>
    </message>
    <message>
        <source>Hearth cannot open the document index ({0}); searches of your collections fail until it can.</source>
        <translation>Hearth 无法打开文档索引（{0}）；在能打开之前，搜索文档集会失败。</translation>
    </message>
    <message>
        <source>{0} is too long to give whole ({1:,} tokens; about {2:,} fit), so the {3} passages most related to your question were given instead.</source>
        <translation>{0} 太长，无法整篇交给模型（{1:,} 个词元；约能容纳 {2:,} 个），因此改为提供与你的问题最相关的 {3} 个段落。</translation>
    </message>
    <message>
        <source>No part of {0} fits in what is left of the model&apos;s context; start a new chat, or choose a longer context in the model&apos;s settings.</source>
        <translation>{0} 的任何部分都放不进模型剩余的上下文；请开始新对话，或在模型设置中选择更长的上下文。</translation>
    </message>
    <message>
        <source>Nothing was added: {0} does not exist.</source>
        <translation>未添加任何内容：{0} 不存在。</translation>
    </message>
    <message>
        <source>{0} cannot be attached: {1}.</source>
        <translation>无法附加 {0}：{1}。</translation>
    </message>
    <message>
        <source>Nothing in {0} matched the question.</source>
        <translation>{0} 中没有与问题匹配的内容。</translation>
    </message>
    <message>
        <source>{0} of the passages found did not fit in what is left of the model&apos;s context and were not given to it.</source>
        <translation>找到的段落中有 {0} 个放不进模型剩余的上下文，没有交给模型。</translation>
    </message>
    <message>
        <source>The embedding model must be a GGUF model; {0} is not.</source>
        <translation>嵌入模型必须是 GGUF 模型；{0} 不是。</translation>
    </message>
    <message>
        <source>an illegal instruction</source>
        <translation>非法指令</translation>
    </message>
    <message>
        <source>The model engine stopped ({0}, an illegal instruction): this build of llama.cpp uses processor instructions that this computer, or the virtual machine it runs in, does not allow. Choose another llama.cpp runtime in Model settings; a build from source needs rebuilding for this processor.</source>
        <translation>模型引擎已停止（{0}，非法指令）：此 llama.cpp 构建使用了这台电脑或其所在虚拟机不允许的处理器指令。请在“模型设置”中选择其他 llama.cpp 运行时；从源码构建的版本需要针对此处理器重新构建。</translation>
    </message>
    <message>
        <source>{0} sent Hearth on to {1}, which is not https: Hearth does not follow it.</source>
        <translation>{0} 让 Hearth 转到 {1}，但那不是 https 地址：Hearth 不会跟随。</translation>
    </message>
    <message>
        <source>{0} sent Hearth on to another server ({1}): Hearth does not follow it.</source>
        <translation>{0} 让 Hearth 转到另一台服务器（{1}）：Hearth 不会跟随。</translation>
    </message>
    <message>
        <source>{0} sent Hearth on more than {1} times.</source>
        <translation>{0} 让 Hearth 转向超过 {1} 次。</translation>
    </message>
    <message>
        <source>{0} sent an answer larger than {1} MB; it was not read.</source>
        <translation>{0} 发来的答复超过 {1} MB，没有读取。</translation>
    </message>
    <message>
        <source>{0} answered too slowly: no whole answer in {1} seconds.</source>
        <translation>{0} 答复太慢：{1} 秒内没有收到完整答复。</translation>
    </message>
    <message>
        <source>Hearth found no free folder for its pictures in {0}.</source>
        <translation>Hearth 在 {0} 中找不到可用来存放图片的文件夹。</translation>
    </message>
    <message>
        <source>{0} reads text only, so it cannot see the pictures of this conversation. Choose a model that reads images (the model list says which do), or start a new conversation without pictures.</source>
        <translation>{0} 只能读取文字，看不到此对话中的图片。请选择能读取图片的模型（模型列表中会注明），或开始一个不含图片的新对话。</translation>
    </message>
    <message>
        <source>A picture of this conversation ({0}) was changed on disk; it is not sent. Attach it anew.</source>
        <translation>此对话中的一张图片（{0}）在磁盘上已被修改，不会发送。请重新附加。</translation>
    </message>
    <message>
        <source>A picture of this conversation ({0}) is missing from Hearth&apos;s data folder, so it cannot be sent again. Edit the message to attach it anew, or start a new conversation.</source>
        <translation>此对话中的一张图片（{0}）已不在 Hearth 的数据文件夹中，无法再次发送。请编辑该消息重新附加，或开始新对话。</translation>
    </message>
    <message>
        <source>{0} is a small model: it rarely calls a tool on its own. Choose Use tools: always to make its first answer a call.</source>
        <translation>{0} 是一个小模型：它很少自行调用工具。选择“使用工具：总是”，让它的第一个回答就是一次工具调用。</translation>
    </message>
    <message>
        <source>The chat template of {0} knows no tools: Hearth describes them to it in a message of its own, which a model may not follow. Choose Use tools: always to make its first answer a call.</source>
        <translation>{0} 的聊天模板不支持工具：Hearth 会用一条单独的消息向它描述这些工具，但模型未必会照做。选择“使用工具：总是”，让它的第一个回答就是一次工具调用。</translation>
    </message>
    <message>
        <source>saving the tool calls</source>
        <translation>保存工具调用</translation>
    </message>
    <message>
        <source>keeping the tool&apos;s Always allow</source>
        <translation>保存该工具的“始终允许”</translation>
    </message>
    <message>
        <source>The reply reached its length limit in the middle of a tool call, so that call was not made. Raise the maximum length and send again.</source>
        <translation>回复在工具调用中途达到了长度上限，因此没有执行该调用。请提高最大回复长度后重新发送。</translation>
    </message>
    <message>
        <source>Not run: this reply reached its limit of {0} tool calls. Answer with what you have.</source>
        <translation>未运行：本次回复已达到 {0} 次工具调用的上限。请根据已有信息作答。</translation>
    </message>
    <message>
        <source>its arguments are not valid JSON</source>
        <translation>它的参数不是有效的 JSON</translation>
    </message>
    <message>
        <source>there is no tool named &apos;{0}&apos; (the tools are: {1})</source>
        <translation>没有名为“{0}”的工具（可用的工具有：{1}）</translation>
    </message>
    <message>
        <source>Your tool call could not be read: {0}. Write it as &lt;tool_call&gt;{{&quot;name&quot;: &quot;...&quot;, &quot;arguments&quot;: {{...}}}}&lt;/tool_call&gt;.</source>
        <translation>无法读取你的工具调用：{0}。请写成 &lt;tool_call&gt;{{&quot;name&quot;: &quot;...&quot;, &quot;arguments&quot;: {{...}}}}&lt;/tool_call&gt;。</translation>
    </message>
    <message>
        <source>The tool failed: {0}</source>
        <translation>工具出错：{0}</translation>
    </message>
    <message>
        <source>Tools are not offered to this reply: the {0} engine cannot call them.</source>
        <translation>本次回复不提供工具：{0} 引擎无法调用工具。</translation>
    </message>
    <message>
        <source>The tool servers are not running.</source>
        <translation>工具服务器没有在运行。</translation>
    </message>
    <message>
        <source>Stopped by the user.</source>
        <translation>已被用户停止。</translation>
    </message>
    <message>
        <source>The result was cut to {0:,} of its {1:,} characters to fit the model&apos;s context.</source>
        <translation>结果已从 {1:,} 个字符截短为 {0:,} 个，以放进模型的上下文。</translation>
    </message>
    <message>
        <source>{0} runs on the {1} engine, not on {2} (--engine): choose a model of the other kind, or leave out --engine.</source>
        <translation>{0} 运行在 {1} 引擎上，而不是 {2}（--engine）：请选择另一类模型，或去掉 --engine。</translation>
    </message>
    <message>
        <source>The picture {0} cannot be read: {1}</source>
        <translation>无法读取图片 {0}：{1}</translation>
    </message>
    <message>
        <source>There is no tool server named {0} (there are: {1}).</source>
        <translation>没有名为 {0} 的工具服务器（现有：{1}）。</translation>
    </message>
    <message>
        <source>The tool server {0} is turned off (Chat › Tool servers…).</source>
        <translation>工具服务器 {0} 已关闭（聊天 › 工具服务器…）。</translation>
    </message>
    <message>
        <source>There is no tool {0}.</source>
        <translation>没有工具 {0}。</translation>
    </message>
    <message>
        <source>--allow-tool {0} could mean {1}: name the one to allow as SERVER/TOOL.</source>
        <translation>--allow-tool {0} 可能指 {1}：请以 SERVER/TOOL 的形式指明要允许的那一个。</translation>
    </message>
    <message>
        <source>--allow-tool {0}: no tool of that name is offered to this chat (see &apos;hearth tools list&apos;).</source>
        <translation>--allow-tool {0}：此对话没有提供该名称的工具（请查看 &apos;hearth tools list&apos;）。</translation>
    </message>
    <message>
        <source>The install was cancelled; run it again to go on.</source>
        <translation>安装已取消；再次运行即可继续。</translation>
    </message>
    <message>
        <source>There is no tool server named {0}.</source>
        <translation>没有名为 {0} 的工具服务器。</translation>
    </message>
    <message>
        <source>Hearth could not read {0} ({1}).</source>
        <translation>Hearth 无法读取 {0}（{1}）。</translation>
    </message>
    <message>
        <source>The document index is damaged and could not be set aside ({0}); searches of your collections fail until it can. Close other Hearth windows and hearth serve, then start Hearth again.</source>
        <translation>文档索引已损坏，且无法移到一旁（{0}）；在此之前，搜索你的文档集会失败。请关闭其他 Hearth 窗口和 hearth serve，然后重新启动 Hearth。</translation>
    </message>
    <message>
        <source>The model engine stopped responding: it made no progress for {0} seconds, so Hearth stopped it. What was written so far was kept; the engine starts again with the next request.</source>
        <translation>模型引擎停止响应：它已有 {0} 秒没有任何进展，Hearth 已将其停止。已写出的内容都保留了；下一个请求会重新启动引擎。</translation>
    </message>
    <message>
        <source>The requests in flight held {0} pictures to read.</source>
        <translation>进行中的请求共有 {0} 张图片待读取。</translation>
    </message>
    <message>
        <source>A request asked the model to follow a very large schema or grammar.</source>
        <translation>某个请求要求模型遵循非常庞大的 schema 或语法。</translation>
    </message>
    <message>
        <source>The model engine worked for {0} seconds on a request&apos;s schema or grammar without writing anything, so Hearth stopped it. Make the schema simpler (fewer repetitions inside repetitions); the engine starts again with the next request.</source>
        <translation>模型引擎为某个请求的 schema 或语法工作了 {0} 秒却没有写出任何内容，Hearth 已将其停止。请简化 schema（减少重复中的重复）；下一个请求会重新启动引擎。</translation>
    </message>
    <message>
        <source>The {0} runtime stopped ({1}); trying the next one.</source>
        <translation>{0} 运行时已停止（{1}）；正在尝试下一个。</translation>
    </message>
    <message>
        <source>Something in a request may have asked for too much.</source>
        <translation>某个请求中的内容可能要求过高。</translation>
    </message>
    <message>
        <source>The model engine stopped unexpectedly ({0}) before this reply began. The model had loaded, so something in this request may have caused it (a very large schema, grammar or prompt); the engine starts again with the next request.</source>
        <translation>模型引擎在这条回复开始前意外停止（{0}）。模型此前已加载成功，因此可能是这个请求中的内容导致的（非常大的 schema、语法或提示）；下一个请求会重新启动引擎。</translation>
    </message>
    <message>
        <source>{0} does not fit in the memory budget ({1}) beside the models that are generating or about to ({2}). Try again when they are done.</source>
        <translation>{0} 与正在生成或即将生成的模型（{2}）一起放不进内存预算（{1}）。请等它们完成后再试。</translation>
    </message>
    <message>
        <source>Hearth&apos;s model catalogue names a model twice.</source>
        <translation>Hearth 的模型目录中有重复的模型名称。</translation>
    </message>
    <message>
        <source>Hearth&apos;s model catalogue cannot be read ({0}). Reinstall Hearth to restore it; searching the hubs still works.</source>
        <translation>无法读取 Hearth 的模型目录（{0}）。请重新安装 Hearth 以恢复；搜索模型仓库仍然可用。</translation>
    </message>
    <message>
        <source>Checked on the hub on {0}.</source>
        <translation>已于 {0} 在模型站核对。</translation>
    </message>
    <message>
        <source>facts about the catalogue&apos;s models</source>
        <translation>目录模型的核对信息</translation>
    </message>
    <message>
        <source>Sizes as shipped with Hearth.</source>
        <translation>大小为 Hearth 随附的数据。</translation>
    </message>
    <message>
        <source>Checked on the hub on {0}: {1} of {2} models found.</source>
        <translation>已于 {0} 在模型站核对：找到 {2} 个模型中的 {1} 个。</translation>
    </message>
    <message>
        <source>The hub answered, but none of the catalogue&apos;s models could be checked ({0}).</source>
        <translation>模型站有回应，但目录中的模型都无法核对（{0}）。</translation>
    </message>
    <message>
        <source>{0} has no single {1} file.</source>
        <translation>{0} 中没有唯一的 {1} 文件。</translation>
    </message>
    <message>
        <source>{0} Hearth started it again and it changed again, so it deleted what arrived. Try later; if it goes on, the mirror may be serving a file that is being replaced.</source>
        <translation>{0} Hearth 重新开始下载后它再次变化，因此已删除已下载的部分。请稍后再试；若仍如此，镜像可能正在提供一个正被替换的文件。</translation>
    </message>
    <message>
        <source>{0} was downloaded and checked, but the file it replaces is open in a program (a model loaded in Hearth?). Unload that model and try again: the download goes on from where it is.</source>
        <translation>{0} 已下载并校验，但它要替换的文件正被某个程序打开（是 Hearth 中已加载的模型吗？）。请卸载该模型后重试：下载会从当前进度继续。</translation>
    </message>
    <message>
        <source>The hub&apos;s answer about {0} could not be read ({1}).</source>
        <translation>无法读取模型仓库关于 {0} 的答复（{1}）。</translation>
    </message>
    <message>
        <source>{0} could not be deleted: another program has it open ({1}). Close the programs using it (another Hearth window or hearth serve) and try again.</source>
        <translation>无法删除 {0}：另一个程序正打开着它（{1}）。请关闭正在使用它的程序（另一个 Hearth 窗口或 hearth serve）后重试。</translation>
    </message>
    <message>
        <source>{0} is in use (a chat, the API or documents): choose another model or unload it in Loaded models, then delete it.</source>
        <translation>{0} 正在使用中（对话、API 或文档）：请选择其他模型，或在“已加载的模型”中卸载它，然后再删除。</translation>
    </message>
    <message>
        <source>The hub&apos;s copy of {0} changed while it downloaded ({1}).</source>
        <translation>{0} 在下载期间，模型库中的副本发生了变化（{1}）。</translation>
    </message>
    <message>
        <source>it has fewer bytes than {0}</source>
        <translation>它的字节数少于 {0}</translation>
    </message>
    <message>
        <source>The hub answered {0} for {1}.</source>
        <translation>模型库对 {1} 的应答为 {0}。</translation>
    </message>
    <message>
        <source>The connection to the hub kept dropping while {0} downloaded ({1}); what arrived is kept. Resume it when the network is steady.</source>
        <translation>下载 {0} 时与模型库的连接不断中断（{1}）；已下载的部分已保留。网络稳定后请继续下载。</translation>
    </message>
    <message>
        <source>it answered bytes {0} for bytes {1}-{2} of {3}</source>
        <translation>请求 {3} 的字节 {1}-{2}，却收到字节 {0}</translation>
    </message>
    <message>
        <source>it sent a file of another size</source>
        <translation>它发送的文件大小不同</translation>
    </message>
    <message>
        <source>its ETag changed</source>
        <translation>它的 ETag 变了</translation>
    </message>
    <message>
        <source>The hub kept answering that it is busy while {0} downloaded; what arrived is kept. Resume it later.</source>
        <translation>下载 {0} 时模型库一直回答正忙；已下载的部分已保留。请稍后继续下载。</translation>
    </message>
    <message>
        <source>Hearth cannot reach {0} at {1}: {2}. Check the internet connection (or a proxy or firewall), or set another address for {0} in Settings.</source>
        <translation>Hearth 无法连接 {1} 上的 {0}：{2}。请检查网络连接（或代理、防火墙），或在设置中为 {0} 设置其他地址。</translation>
    </message>
    <message>
        <source>the connection was refused</source>
        <translation>连接被拒绝</translation>
    </message>
    <message>
        <source>no answer</source>
        <translation>没有响应</translation>
    </message>
    <message>
        <source>no address</source>
        <translation>没有地址</translation>
    </message>
    <message>
        <source>Hearth cannot reach {0}: the name {1} cannot be looked up. Check the internet connection, or set another address for {0} in Settings.</source>
        <translation>Hearth 无法连接 {0}：无法解析域名 {1}。请检查网络连接，或在设置中为 {0} 设置其他地址。</translation>
    </message>
    <message>
        <source>Hearth found no model to serve. Reinstall Hearth to restore the starter model, or put a .gguf file into {0}.</source>
        <translation>Hearth 没有找到可提供服务的模型。请重新安装 Hearth 以恢复入门模型，或把 .gguf 文件放入 {0}。</translation>
    </message>
    <message>
        <source>NVIDIA GPUs: no driver found.</source>
        <translation>NVIDIA GPU：未找到驱动。</translation>
    </message>
    <message>
        <source>RAM {0}/{1} GB</source>
        <translation>内存 {0}/{1} GB</translation>
    </message>
    <message>
        <source>model process {0} GB</source>
        <translation>模型进程 {0} GB</translation>
    </message>
    <message>
        <source>GPU{0} {1}/{2} GB, {3} %</source>
        <translation>GPU{0} {1}/{2} GB，{3} %</translation>
    </message>
    <message>
        <source>System: {0}</source>
        <translation>系统：{0}</translation>
    </message>
    <message>
        <source>CPU: {0} ({1} physical, {2} logical cores; {3})</source>
        <translation>CPU：{0}（{1} 个物理核心，{2} 个逻辑核心；{3}）</translation>
    </message>
    <message>
        <source>Memory: {0} total, {1} available</source>
        <translation>内存：共 {0}，可用 {1}</translation>
    </message>
    <message>
        <source>Disk: {0} free at {1}</source>
        <translation>磁盘：{1} 处可用 {0}</translation>
    </message>
    <message>
        <source>llama.cpp: llama-cpp-python {0} ({1})</source>
        <translation>llama.cpp：llama-cpp-python {0}（{1}）</translation>
    </message>
    <message>
        <source>llama.cpp runtime {0}: not usable</source>
        <translation>llama.cpp 运行时 {0}：不可用</translation>
    </message>
    <message>
        <source>llama.cpp runtime {0}: in use</source>
        <translation>llama.cpp 运行时 {0}：正在使用</translation>
    </message>
    <message>
        <source>llama.cpp runtime {0}: usable</source>
        <translation>llama.cpp 运行时 {0}：可用</translation>
    </message>
    <message>
        <source>{0} VRAM ({1} free), seen through llama.cpp&apos;s {2} runtime.</source>
        <translation>显存 {0}（可用 {1}），由 llama.cpp 的 {2} 运行时发现。</translation>
    </message>
    <message>
        <source>, CUDA {0}, compute {1}</source>
        <translation>，CUDA {0}，计算能力 {1}</translation>
    </message>
    <message>
        <source>GPU {0}: {1}, {2} VRAM ({3} free), driver {4}{5}</source>
        <translation>GPU {0}：{1}，显存 {2}（可用 {3}），驱动 {4}{5}</translation>
    </message>
    <message>
        <source>GPU offload</source>
        <translation>GPU 加速</translation>
    </message>
    <message>
        <source>CPU only</source>
        <translation>仅 CPU</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>in use</source>
        <translation>使用中</translation>
    </message>
    <message>
        <source>  runtime {0} ({1}): {2}; {3}</source>
        <translation>  运行时 {0}（{1}）：{2}；{3}</translation>
    </message>
    <message>
        <source>CUDA {0}</source>
        <translation>CUDA {0}</translation>
    </message>
    <message>
        <source>CPU build</source>
        <translation>CPU 版本</translation>
    </message>
    <message>
        <source>PyTorch: {0} ({1}; GPU usable: {2}; architectures: {3}; bf16: {4})</source>
        <translation>PyTorch：{0}（{1}；GPU 可用：{2}；架构：{3}；bf16：{4}）</translation>
    </message>
    <message>
        <source>PyTorch: not installed</source>
        <translation>PyTorch：未安装</translation>
    </message>
    <message>
        <source>Linux: transparent huge pages {0}, swappiness {1}, NUMA nodes {2}</source>
        <translation>Linux：透明大页 {0}，swappiness {1}，NUMA 节点 {2}</translation>
    </message>
    <message>
        <source>Note: {0}</source>
        <translation>注意：{0}</translation>
    </message>
    <message>
        <source>GPU: none found (Apple Silicon, Metal)</source>
        <translation>GPU：未找到独立显卡（Apple Silicon，Metal）</translation>
    </message>
    <message>
        <source>GPU: none found</source>
        <translation>GPU：未找到</translation>
    </message>
    <message>
        <source>usable</source>
        <translation>可用</translation>
    </message>
    <message>
        <source>not usable</source>
        <translation>不可用</translation>
    </message>
    <message>
        <source>The PyTorch engine is not installed</source>
        <translation>PyTorch 引擎未安装</translation>
    </message>
    <message>
        <source>GGUF models run without it; Hugging Face checkpoints need it. Hearth adds it from inside the app, with the build this GPU&apos;s driver runs.</source>
        <translation>GGUF 模型不需要它；Hugging Face 检查点需要它。Hearth 可以在应用内添加它，并选用这块 GPU 的驱动能运行的版本。</translation>
    </message>
    <message>
        <source>Add it in Settings › Engines, or with: hearth engines install pytorch</source>
        <translation>请在 设置 › 推理引擎 中添加，或运行：hearth engines install pytorch</translation>
    </message>
    <message>
        <source>the header holds more nested lists than any model</source>
        <translation>文件头包含的嵌套列表比任何模型都多</translation>
    </message>
    <message>
        <source>the header nests lists too deeply</source>
        <translation>文件头中的列表嵌套过深</translation>
    </message>
    <message>
        <source>Hearth could not read this model ({0}).</source>
        <translation>Hearth 无法读取此模型（{0}）。</translation>
    </message>
    <message>
        <source>model settings</source>
        <translation>模型设置</translation>
    </message>
    <message>
        <source>unknown engine {0!r}</source>
        <translation>未知引擎 {0!r}</translation>
    </message>
    <message>
        <source>Installed the PyTorch engine: torch {0} ({1}), checked on this computer.</source>
        <translation>已安装 PyTorch 引擎：torch {0}（{1}），并已在这台电脑上检查通过。</translation>
    </message>
    <message>
        <source>Installed the {0} runtime in {1}, checked on this computer.</source>
        <translation>已将 {0} 运行时安装到 {1}，并已在这台电脑上检查通过。</translation>
    </message>
    <message>
        <source>Removed the {0} runtime ({1:.2f} GB freed).</source>
        <translation>已移除 {0} 运行时（释放了 {1:.2f} GB）。</translation>
    </message>
    <message>
        <source>The {0} runtime is the one installed before again.</source>
        <translation>{0} 运行时已回退到之前安装的版本。</translation>
    </message>
    <message>
        <source>Checking that it runs on this computer</source>
        <translation>正在检查能否在这台电脑上运行</translation>
    </message>
    <message>
        <source>{0} s</source>
        <translation>{0} 秒</translation>
    </message>
    <message>
        <source>Removed the PyTorch engine ({0:.2f} GB freed).</source>
        <translation>已移除 PyTorch 引擎（释放了 {0:.2f} GB）。</translation>
    </message>
    <message>
        <source>Deleted the {0} pack&apos;s download ({1:.2f} GB freed).</source>
        <translation>已删除 {0} 包的下载（释放 {1:.2f} GB）。</translation>
    </message>
    <message>
        <source>The PyTorch engine is torch {0} again.</source>
        <translation>PyTorch 引擎已回退到 torch {0}。</translation>
    </message>
    <message>
        <source>Downloading {0:,.0f} of {1:,.0f} MB</source>
        <translation>正在下载 {0:,.0f} / {1:,.0f} MB</translation>
    </message>
    <message>
        <source>Unpacking {0} of {1}</source>
        <translation>正在解包 {0} / {1}</translation>
    </message>
    <message>
        <source>{0} min {1:02d} s</source>
        <translation>{0} 分 {1:02d} 秒</translation>
    </message>
    <message>
        <source>its folder is missing or damaged; reinstall it</source>
        <translation>它的文件夹缺失或已损坏；请重新安装</translation>
    </message>
    <message>
        <source>Deleted the PyTorch engine&apos;s download ({0:.2f} GB freed).</source>
        <translation>已删除 PyTorch 引擎的下载（释放 {0:.2f} GB）。</translation>
    </message>
    <message>
        <source>A model that uses it is still being unloaded after {0:.0f} s; nothing was removed. Try again in a moment.</source>
        <translation>使用它的模型在 {0:.0f} 秒后仍在卸载；未删除任何内容。请稍后再试。</translation>
    </message>
    <message>
        <source>Downloading {0:,.0f} of {1:,.0f} MB, {2:.1f} MB/s, {3} left</source>
        <translation>正在下载 {0:,.0f} / {1:,.0f} MB，{2:.1f} MB/s，剩余 {3}</translation>
    </message>
    <message>
        <source>Downloading {0:,.0f} of {1:,.0f} MB, {2:.1f} MB/s</source>
        <translation>正在下载 {0:,.0f} / {1:,.0f} MB，{2:.1f} MB/s</translation>
    </message>
    <message>
        <source>Downloading {0:,.0f} of {1:,.0f} MB, {2} left</source>
        <translation>正在下载 {0:,.0f} / {1:,.0f} MB，剩余 {2}</translation>
    </message>
    <message>
        <source>Hugging Face checkpoints need it</source>
        <translation>Hugging Face 检查点需要它</translation>
    </message>
    <message>
        <source>Another download of {0} is under way.</source>
        <translation>{0} 的另一个下载正在进行。</translation>
    </message>
    <message>
        <source>{0} holds more than {1}, which is not a list of packs.</source>
        <translation>{0} 的内容超过 {1}，不是运行时包列表。</translation>
    </message>
    <message>
        <source>{0} could not be reached or stopped answering ({1}).</source>
        <translation>无法连接 {0}，或它已停止响应（{1}）。</translation>
    </message>
    <message>
        <source>{0} could not be downloaded: {1}</source>
        <translation>无法下载 {0}：{1}</translation>
    </message>
    <message>
        <source>{0} did not answer within {1} s.</source>
        <translation>{0} 在 {1} 秒内没有响应。</translation>
    </message>
    <message>
        <source>{0} sent nothing for {1} s.</source>
        <translation>{0} 已有 {1} 秒没有发送任何数据。</translation>
    </message>
    <message>
        <source>{0} redirected the download too many times.</source>
        <translation>{0} 重定向下载的次数过多。</translation>
    </message>
    <message>
        <source>{0} answered {1} {2}.</source>
        <translation>{0} 返回了 {1} {2}。</translation>
    </message>
    <message>
        <source>There is nowhere to download {0} from.</source>
        <translation>没有可以下载 {0} 的来源。</translation>
    </message>
    <message>
        <source>There is not enough free disk space for {0}: it needs {1} in {2}, where {3} are free.</source>
        <translation>{0} 所需的磁盘空间不足：需要在 {2} 中占用 {1}，而那里只有 {3} 可用。</translation>
    </message>
    <message>
        <source>the file from {0} is damaged (its SHA-256 does not match), so it was deleted.</source>
        <translation>来自 {0} 的文件已损坏（SHA-256 不匹配），已将其删除。</translation>
    </message>
    <message>
        <source>the file at {0} is shorter than the {1} bytes expected.</source>
        <translation>{0} 处的文件比预期的 {1} 字节短。</translation>
    </message>
    <message>
        <source>The download was cancelled; it goes on from here next time.</source>
        <translation>下载已取消；下次会从这里继续。</translation>
    </message>
    <message>
        <source>{0} sent more than the file&apos;s {1} bytes.</source>
        <translation>{0} 发送的数据超过了文件的 {1} 字节。</translation>
    </message>
    <message>
        <source>{0} could not be read ({1}).</source>
        <translation>无法读取 {0}（{1}）。</translation>
    </message>
    <message>
        <source>{0} has {1} bytes, not the {2} expected.</source>
        <translation>{0} 有 {1} 字节，而不是预期的 {2} 字节。</translation>
    </message>
    <message>
        <source>{0} sent the download on to {1}, which is not https.</source>
        <translation>{0} 把下载转到了 {1}，而它不是 https 地址。</translation>
    </message>
    <message>
        <source>{0} answered another part of the file.</source>
        <translation>{0} 返回的是文件的另一部分。</translation>
    </message>
    <message>
        <source>{0} could not be written ({1}).</source>
        <translation>无法写入 {0}（{1}）。</translation>
    </message>
    <message>
        <source>{0} stopped sending before the end.</source>
        <translation>{0} 还没发送完就停止了。</translation>
    </message>
    <message>
        <source>The disk is full: {0} could not be written. What was downloaded is kept; free some space and try again.</source>
        <translation>磁盘已满：无法写入 {0}。已下载的部分会保留；请释放一些空间后重试。</translation>
    </message>
    <message>
        <source>The {0} pack is damaged ({1}); nothing was installed.</source>
        <translation>{0} 包已损坏（{1}）；未安装任何内容。</translation>
    </message>
    <message>
        <source>{0} is not the file its list names</source>
        <translation>{0} 不是列表中所列的文件</translation>
    </message>
    <message>
        <source>its archive cannot be read: {0}</source>
        <translation>无法读取它的压缩包：{0}</translation>
    </message>
    <message>
        <source>its archive holds {0}, which its list lacks</source>
        <translation>它的压缩包中含有 {0}，而列表中没有</translation>
    </message>
    <message>
        <source>{0} cannot be read: {1}</source>
        <translation>无法读取 {0}：{1}</translation>
    </message>
    <message>
        <source>The installation of {0} was cancelled.</source>
        <translation>{0} 的安装已取消。</translation>
    </message>
    <message>
        <source>{0} is missing</source>
        <translation>缺少 {0}</translation>
    </message>
    <message>
        <source>{0} is a link</source>
        <translation>{0} 是一个链接</translation>
    </message>
    <message>
        <source>{0} could not be written ({1}); nothing was installed.</source>
        <translation>无法写入 {0}（{1}）；未安装任何内容。</translation>
    </message>
    <message>
        <source>this pack has no kernels for the GPU (compute capability {0})</source>
        <translation>此包没有适用于该 GPU（计算能力 {0}）的内核</translation>
    </message>
    <message>
        <source>this pack is for {0}; this computer is {1}</source>
        <translation>此包适用于 {0}；这台电脑是 {1}</translation>
    </message>
    <message>
        <source>this CPU lacks {0}, which this pack needs</source>
        <translation>此 CPU 缺少此包所需的 {0}</translation>
    </message>
    <message>
        <source>no NVIDIA GPU</source>
        <translation>没有 NVIDIA GPU</translation>
    </message>
    <message>
        <source>the driver supports CUDA {0}; this pack needs {1}</source>
        <translation>驱动支持 CUDA {0}；此包需要 {1}</translation>
    </message>
    <message>
        <source>the NVIDIA driver is version {0}; this pack needs {1} or later</source>
        <translation>NVIDIA 驱动版本为 {0}；此包需要 {1} 或更高版本</translation>
    </message>
    <message>
        <source>the GPU (compute capability {0}) is older than this pack&apos;s kernels</source>
        <translation>该 GPU（计算能力 {0}）比此包的内核所支持的更旧</translation>
    </message>
    <message>
        <source>the GPU (compute capability {0}) needs this pack&apos;s PTX compiled by a driver that supports CUDA {1}; the driver supports {2}</source>
        <translation>该 GPU（计算能力 {0}）需要由支持 CUDA {1} 的驱动来编译此包的 PTX；而驱动支持的是 {2}</translation>
    </message>
    <message>
        <source>The list of runtime packs could not be read: {0}</source>
        <translation>无法读取运行时包列表：{0}</translation>
    </message>
    <message>
        <source>{0} is a plain http address; a list of packs is read only over https or from this computer</source>
        <translation>{0} 是普通 http 地址；包列表只能通过 https 或从本机读取</translation>
    </message>
    <message>
        <source>the list at {0} cannot be used ({1})</source>
        <translation>{0} 处的列表无法使用（{1}）</translation>
    </message>
    <message>
        <source>Hugging Face checkpoints run on the PyTorch engine, which is not installed. Add it in Settings › Engines, or with: hearth engines install pytorch</source>
        <translation>Hugging Face 检查点在 PyTorch 引擎上运行，但它尚未安装。请在 设置 › 推理引擎 中添加，或运行：hearth engines install pytorch</translation>
    </message>
    <message>
        <source>An install of the PyTorch engine is already running; wait for it to end.</source>
        <translation>PyTorch 引擎已在安装中；请等待安装结束。</translation>
    </message>
    <message>
        <source>not installed: Hugging Face checkpoints need it</source>
        <translation>未安装：Hugging Face 检查点需要它</translation>
    </message>
    <message>
        <source>this version of Hearth offers none for this computer</source>
        <translation>此版本的 Hearth 没有提供适用于这台电脑的版本</translation>
    </message>
    <message>
        <source>its folder is missing or damaged; install it again (hearth engines install pytorch)</source>
        <translation>它的文件夹缺失或已损坏；请重新安装（hearth engines install pytorch）</translation>
    </message>
    <message>
        <source>the torch of this Python environment (a source checkout)</source>
        <translation>此 Python 环境自带的 torch（源码检出）</translation>
    </message>
    <message>
        <source>The CUDA PyTorch engine cannot run here: {0}.</source>
        <translation>CUDA 版 PyTorch 引擎无法在这里运行：{0}。</translation>
    </message>
    <message>
        <source>The PyTorch engine cannot run here: {0}. Nothing was downloaded.</source>
        <translation>PyTorch 引擎无法在此运行：{0}。未下载任何内容。</translation>
    </message>
    <message>
        <source>The PyTorch engine did not start on this computer: {0}</source>
        <translation>PyTorch 引擎无法在这台电脑上启动：{0}</translation>
    </message>
    <message>
        <source>The PyTorch engine&apos;s check found torch {0} where the lock names {1}.</source>
        <translation>PyTorch 引擎的检查发现 torch 版本为 {0}，而锁定文件指定的是 {1}。</translation>
    </message>
    <message>
        <source>The PyTorch engine cannot use the GPU here: {0}.</source>
        <translation>PyTorch 引擎无法在这里使用 GPU：{0}。</translation>
    </message>
    <message>
        <source>it took over {0:.0f} s</source>
        <translation>耗时超过 {0:.0f} 秒</translation>
    </message>
    <message>
        <source>it stopped without an answer; the log has its last words</source>
        <translation>它未作应答就停止了；日志中有它最后的输出</translation>
    </message>
    <message>
        <source>The PyTorch engine did not start in its check on this computer ({0}); nothing was changed.</source>
        <translation>PyTorch 引擎在本机的检查中未能启动（{0}）；未做任何更改。</translation>
    </message>
    <message>
        <source>There is no earlier PyTorch engine to go back to.</source>
        <translation>没有可以回退到的早先 PyTorch 引擎。</translation>
    </message>
    <message>
        <source>The PyTorch engine is not installed.</source>
        <translation>PyTorch 引擎未安装。</translation>
    </message>
    <message>
        <source>The PyTorch engine needs about {0:.1f} GB of free disk space here and {1:.1f} GB is free. Free some space and try again.</source>
        <translation>PyTorch 引擎在这里需要约 {0:.1f} GB 可用磁盘空间，而目前只有 {1:.1f} GB 可用。请释放一些空间后重试。</translation>
    </message>
    <message>
        <source>The install was cancelled; nothing was changed.</source>
        <translation>安装已取消；没有做任何更改。</translation>
    </message>
    <message>
        <source>An install of the PyTorch engine is running; cancel it first.</source>
        <translation>PyTorch 引擎正在安装；请先取消安装。</translation>
    </message>
    <message>
        <source>The PyTorch engine could not be removed completely ({0}). Unload the models that use it (Loaded models) and try again.</source>
        <translation>无法完全移除 PyTorch 引擎（{0}）。请卸载使用它的模型（已加载的模型）后重试。</translation>
    </message>
    <message>
        <source>The install was cancelled; what was downloaded is kept for the next try.</source>
        <translation>安装已取消；已下载的部分会保留，供下次继续。</translation>
    </message>
    <message>
        <source>The PyTorch engine was not installed: {0}</source>
        <translation>未安装 PyTorch 引擎：{0}</translation>
    </message>
    <message>
        <source>The PyTorch engine was not installed: unpacking it failed ({0}); nothing was changed. Free some disk space and try again.</source>
        <translation>未安装 PyTorch 引擎：解包失败（{0}）；没有做任何更改。请释放一些磁盘空间后重试。</translation>
    </message>
    <message>
        <source>torch sees no {0} device</source>
        <translation>torch 没有发现 {0} 设备</translation>
    </message>
    <message>
        <source>there is no NVIDIA GPU (with its driver) on this computer</source>
        <translation>这台电脑上没有 NVIDIA GPU（或其驱动）</translation>
    </message>
    <message>
        <source>the driver supports CUDA {0}; this build needs {1} (NVIDIA&apos;s driver {2} or newer)</source>
        <translation>驱动支持 CUDA {0}；此版本需要 {1}（NVIDIA 驱动 {2} 或更新版本）</translation>
    </message>
    <message>
        <source>this Mac has macOS {0}; this build needs macOS {1} or newer</source>
        <translation>此 Mac 为 macOS {0}；此版本需要 macOS {1} 或更新版本</translation>
    </message>
    <message>
        <source>The PyTorch engine&apos;s lock file is of another version.</source>
        <translation>PyTorch 引擎的锁定文件属于另一个版本。</translation>
    </message>
    <message>
        <source>This version of Hearth offers no PyTorch engine for {0}.</source>
        <translation>此版本的 Hearth 没有提供适用于 {0} 的 PyTorch 引擎。</translation>
    </message>
    <message>
        <source>This version of Hearth offers no {0} PyTorch engine for {1} (it has: {2}).</source>
        <translation>此版本的 Hearth 没有提供适用于 {1} 的 {0} 版 PyTorch 引擎（现有：{2}）。</translation>
    </message>
    <message>
        <source>The PyTorch engine&apos;s lock file cannot be read ({0}): reinstall Hearth.</source>
        <translation>无法读取 PyTorch 引擎的锁定文件（{0}）：请重新安装 Hearth。</translation>
    </message>
    <message>
        <source>Another runtime pack is being installed or removed; try again when it has finished.</source>
        <translation>另一个运行时包正在安装或移除；请在其完成后重试。</translation>
    </message>
    <message>
        <source>list of runtime packs</source>
        <translation>运行时包列表</translation>
    </message>
    <message>
        <source>The {0} runtime&apos;s folder could not be changed ({1}); stop the models that use it and try again. Nothing was changed.</source>
        <translation>无法更改 {0} 运行时的文件夹（{1}）；请停止使用它的模型后重试。没有做任何更改。</translation>
    </message>
    <message>
        <source>its folder was removed; install it again</source>
        <translation>它的文件夹已被删除；请重新安装</translation>
    </message>
    <message>
        <source>Downloading the {0} pack ({1})</source>
        <translation>正在下载 {0} 包（{1}）</translation>
    </message>
    <message>
        <source>Checking every file of the {0} pack</source>
        <translation>正在检查 {0} 包的每个文件</translation>
    </message>
    <message>
        <source>The list of runtime packs offers none called {0}.</source>
        <translation>运行时包列表中没有名为 {0} 的包。</translation>
    </message>
    <message>
        <source>The {0} pack is built for {1}, not for this computer ({2}); nothing was downloaded.</source>
        <translation>{0} 包是为 {1} 构建的，不适用于这台电脑（{2}）；未下载任何内容。</translation>
    </message>
    <message>
        <source>The {0} pack is built for llama-cpp-python {1}, but this Hearth has {2}; nothing was downloaded.</source>
        <translation>{0} 包是为 llama-cpp-python {1} 构建的，而此 Hearth 使用的是 {2}；未下载任何内容。</translation>
    </message>
    <message>
        <source>The list names no files for the {0} pack.</source>
        <translation>列表中没有列出 {0} 包的任何文件。</translation>
    </message>
    <message>
        <source>The {0} pack cannot run here: {1}. Nothing was downloaded.</source>
        <translation>{0} 包无法在这里运行：{1}。未下载任何内容。</translation>
    </message>
    <message>
        <source>There is not enough free disk space for the {0} pack: it needs {1} in {2}, where {3} are free; nothing was downloaded.</source>
        <translation>{0} 包所需的磁盘空间不足：需要在 {2} 中占用 {1}，而那里只有 {3} 可用；未下载任何内容。</translation>
    </message>
    <message>
        <source>The {0} pack does not describe itself as its list does; nothing was installed.</source>
        <translation>{0} 包对自身的描述与列表不符；未安装任何内容。</translation>
    </message>
    <message>
        <source>The {0} pack did not pass its check ({1}); what was installed before is kept.</source>
        <translation>{0} 包未通过检查（{1}）；之前安装的版本会保留。</translation>
    </message>
    <message>
        <source>{0} is not the name of a runtime pack.</source>
        <translation>{0} 不是运行时包的名称。</translation>
    </message>
    <message>
        <source>Checking that the {0} pack runs here</source>
        <translation>正在检查 {0} 包能否在这里运行</translation>
    </message>
    <message>
        <source>There is no earlier {0} pack to go back to.</source>
        <translation>没有可以回退到的早先 {0} 包。</translation>
    </message>
    <message>
        <source>No runtime pack called {0} is installed.</source>
        <translation>没有安装名为 {0} 的运行时包。</translation>
    </message>
    <message>
        <source>{0} holds a file outside its folder.</source>
        <translation>{0} 含有位于其文件夹之外的文件。</translation>
    </message>
    <message>
        <source>{0} holds a link.</source>
        <translation>{0} 含有链接。</translation>
    </message>
    <message>
        <source>{0} is damaged ({1}).</source>
        <translation>{0} 已损坏（{1}）。</translation>
    </message>
    <message>
        <source>No free port was found on {0}.</source>
        <translation>在 {0} 上找不到空闲端口。</translation>
    </message>
    <message>
        <source>Serving on {0} makes the model reachable from other computers; Hearth requires an API key for that (--api-key-file, $HEARTH_SERVE_API_KEY or --api-key).</source>
        <translation>在 {0} 上提供服务会让其他电脑也能访问该模型；为此 Hearth 要求设置 API 密钥（--api-key-file、$HEARTH_SERVE_API_KEY 或 --api-key）。</translation>
    </message>
    <message>
        <source>Hearth cannot listen on {0}:{1} ({2}).</source>
        <translation>Hearth 无法在 {0}:{1} 上监听（{2}）。</translation>
    </message>
    <message>
        <source>Port {0} is already in use on {1} (another Hearth or another server?). Choose another with --port.</source>
        <translation>{1} 上的端口 {0} 已被占用（另一个 Hearth 或其他服务器？）。请用 --port 选择其他端口。</translation>
    </message>
    <message>
        <source>settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>The setting &apos;{0}&apos; was invalid ({1}) and was reset to its default.</source>
        <translation>设置“{0}”无效（{1}），已恢复为默认值。</translation>
    </message>
    <message>
        <source>The user denied this tool call. Do not call it again for this request.</source>
        <translation>用户拒绝了此次工具调用。本次请求中请勿再次调用它。</translation>
    </message>
    <message>
        <source>may reach the network</source>
        <translation>可能访问网络</translation>
    </message>
    <message>
        <source>may delete or overwrite things</source>
        <translation>可能删除或覆盖内容</translation>
    </message>
    <message>
        <source>may change files or data</source>
        <translation>可能更改文件或数据</translation>
    </message>
    <message>
        <source>Date and time</source>
        <translation>日期和时间</translation>
    </message>
    <message>
        <source>Search documents</source>
        <translation>搜索文档</translation>
    </message>
    <message>
        <source>Hearth has no tool named {0}.</source>
        <translation>Hearth 没有名为 {0} 的工具。</translation>
    </message>
    <message>
        <source>search_documents needs a query.</source>
        <translation>search_documents 需要一个查询。</translation>
    </message>
    <message>
        <source>Expected a JSON object with &quot;mcpServers&quot; in it.</source>
        <translation>应为包含 &quot;mcpServers&quot; 的 JSON 对象。</translation>
    </message>
    <message>
        <source>&quot;mcpServers&quot; should map each server&apos;s name to its settings.</source>
        <translation>&quot;mcpServers&quot; 应将每个服务器的名称映射到其设置。</translation>
    </message>
    <message>
        <source>That is more than {0} servers.</source>
        <translation>服务器数量超过了 {0} 个。</translation>
    </message>
    <message>
        <source>The name {0} is Hearth&apos;s own tools; give the server another name.</source>
        <translation>名称 {0} 属于 Hearth 自带的工具；请给该服务器换一个名称。</translation>
    </message>
    <message>
        <source>The server name &apos;{0}&apos; cannot be used: letters, digits, &apos;-&apos;, &apos;_&apos; and &apos;.&apos; only, at most 64.</source>
        <translation>服务器名称“{0}”不可用：只能使用字母、数字、“-”、“_”和“.”，最多 64 个字符。</translation>
    </message>
    <message>
        <source>The server {0} should be a JSON object.</source>
        <translation>服务器 {0} 应为一个 JSON 对象。</translation>
    </message>
    <message>
        <source>The server {0} uses the old SSE transport; Hearth speaks Streamable HTTP. Give the server&apos;s Streamable HTTP URL (often ending in /mcp).</source>
        <translation>服务器 {0} 使用旧的 SSE 传输；Hearth 使用 Streamable HTTP。请提供该服务器的 Streamable HTTP 地址（通常以 /mcp 结尾）。</translation>
    </message>
    <message>
        <source>The server {0} needs a command to start it, or a url to reach it.</source>
        <translation>服务器 {0} 需要一个启动命令，或一个访问地址（url）。</translation>
    </message>
    <message>
        <source>The server {0}&apos;s {1} should map names to text.</source>
        <translation>服务器 {0} 的 {1} 应将名称映射到文本。</translation>
    </message>
    <message>
        <source>The server {0}&apos;s {1} should be a list of text.</source>
        <translation>服务器 {0} 的 {1} 应为文本列表。</translation>
    </message>
    <message>
        <source>tool servers</source>
        <translation>工具服务器</translation>
    </message>
    <message>
        <source>This is not JSON Hearth can read ({0}).</source>
        <translation>这不是 Hearth 能读取的 JSON（{0}）。</translation>
    </message>
    <message>
        <source>The server {0}&apos;s url is not an http(s) address.</source>
        <translation>服务器 {0} 的 url 不是 http(s) 地址。</translation>
    </message>
    <message>
        <source>content of the kind &apos;{0}&apos;</source>
        <translation>“{0}”类型的内容</translation>
    </message>
    <message>
        <source>The tool server {0} stopped ({1}).{2}</source>
        <translation>工具服务器 {0} 已停止（{1}）。{2}</translation>
    </message>
    <message>
        <source>The tool server {0} stopped (its exit code: {1}).{2}</source>
        <translation>工具服务器 {0} 已停止（退出码：{1}）。{2}</translation>
    </message>
    <message>
        <source>The tool server {0} could not be started: {1} ({2}).</source>
        <translation>无法启动工具服务器 {0}：{1}（{2}）。</translation>
    </message>
    <message>
        <source>Its last words: {0}</source>
        <translation>它最后的输出：{0}</translation>
    </message>
    <message>
        <source>an image</source>
        <translation>一张图片</translation>
    </message>
    <message>
        <source>audio</source>
        <translation>音频</translation>
    </message>
    <message>
        <source>a binary file</source>
        <translation>一个二进制文件</translation>
    </message>
    <message>
        <source>The tool server {0} was stopped.</source>
        <translation>工具服务器 {0} 已被停止。</translation>
    </message>
    <message>
        <source>The tool server {0} did not start within {1:g} s.{2}</source>
        <translation>工具服务器 {0} 未在 {1:g} 秒内启动。{2}</translation>
    </message>
    <message>
        <source>The tool {0} did not answer within {1:g} s.</source>
        <translation>工具 {0} 未在 {1:g} 秒内应答。</translation>
    </message>
    <message>
        <source>The tool server {0} stopped during the call.{1}</source>
        <translation>工具服务器 {0} 在调用过程中停止了。{1}</translation>
    </message>
    <message>
        <source>The tool {0} failed: {1}</source>
        <translation>工具 {0} 出错：{1}</translation>
    </message>
    <message>
        <source>There is no tool server named {0} (see Settings › Tools).</source>
        <translation>没有名为 {0} 的工具服务器（请查看 设置 › 工具）。</translation>
    </message>
    <message>
        <source>The tool servers were stopped (Hearth is quitting).</source>
        <translation>工具服务器已停止（Hearth 正在退出）。</translation>
    </message>
    <message>
        <source>The tool returned {0}, which Hearth cannot show.</source>
        <translation>工具返回了{0}，Hearth 无法显示。</translation>
    </message>
    <message>
        <source>the answer about new versions could not be read</source>
        <translation>无法读取关于新版本的答复</translation>
    </message>
    <message>
        <source>the releases page could not be reached</source>
        <translation>无法连接发布页面</translation>
    </message>
    <message>
        <source>The request&apos;s schema or grammar took {0:.1f} seconds to follow for one token, so it was stopped. Make it simpler (fewer repetitions inside repetitions).</source>
        <translation>请求的 schema 或语法为生成一个 token 就花了 {0:.1f} 秒，因此已被停止。请简化它（减少重复中的重复）。</translation>
    </message>
    <message>
        <source>Picture {0} is missing from Hearth&apos;s pictures folder, so the model cannot see it. Attach it anew.</source>
        <translation>第 {0} 张图片已不在 Hearth 的图片文件夹中，模型无法看到它。请重新附加。</translation>
    </message>
    <message>
        <source>Picture {0} was changed on disk after it was sent; it is not shown to the model. Attach it anew.</source>
        <translation>第 {0} 张图片在发送后被改动过，不会交给模型。请重新附加。</translation>
    </message>
    <message>
        <source>The pictures of this conversation have {0} million pixels together; at most {1} million are read at once. Send fewer or smaller pictures, or start a new conversation.</source>
        <translation>此对话中的图片合计 {0} 百万像素；一次最多读取 {1} 百万像素。请发送更少或更小的图片，或开始新的对话。</translation>
    </message>
    <message>
        <source>The {0} tools offered to this reply need about {1} tokens, more than this model&apos;s context leaves ({2}). Offer fewer tools (the Tools menu, or --tools SERVER/TOOL) or raise the context length.</source>
        <translation>为本次回复提供的 {0} 个工具约需 {1} 个 token，超过了此模型上下文剩余的空间（{2}）。请少提供一些工具（工具菜单，或 --tools SERVER/TOOL），或提高上下文长度。</translation>
    </message>
    <message>
        <source>{0} is {1} MB; pictures of up to {2} MB are read. Make it smaller first.</source>
        <translation>{0} 大小为 {1} MB；只能读取不超过 {2} MB 的图片。请先缩小它。</translation>
    </message>
    <message>
        <source>The conversation holds {0} images; at most {1} are read at once. Start a new conversation for more.</source>
        <translation>此对话包含 {0} 张图片；一次最多读取 {1} 张。如需更多，请开始新对话。</translation>
    </message>
    <message>
        <source>The conversation&apos;s images come to {0} MB; at most {1} MB are read at once.</source>
        <translation>此对话的图片共 {0} MB；一次最多读取 {1} MB。</translation>
    </message>
    <message>
        <source>{0} is empty.</source>
        <translation>{0} 是空的。</translation>
    </message>
    <message>
        <source>{0} is an SVG drawing; save it as a PNG or JPEG picture first.</source>
        <translation>{0} 是 SVG 矢量图；请先将其保存为 PNG 或 JPEG 图片。</translation>
    </message>
    <message>
        <source>{0} is not a PNG, JPEG, GIF, BMP or WebP picture.</source>
        <translation>{0} 不是 PNG、JPEG、GIF、BMP 或 WebP 图片。</translation>
    </message>
    <message>
        <source>A message holds {0} images; at most {1} go in one message.</source>
        <translation>一条消息包含 {0} 张图片；每条消息最多 {1} 张。</translation>
    </message>
    <message>
        <source>An image part&apos;s data is not base64.</source>
        <translation>图片部分的数据不是 base64。</translation>
    </message>
    <message>
        <source>the releases page answered {0}</source>
        <translation>发布页面返回了 {0}</translation>
    </message>
    <message>
        <source>Your message needs {0} tokens but this model&apos;s context leaves room for {1}. Shorten the message or raise the context length in the settings.</source>
        <translation>你的消息需要 {0} 个 token，但此模型的上下文只剩 {1} 个 token 的空间。请缩短消息，或在设置中提高上下文长度。</translation>
    </message>
    <message>
        <source>The conversation is longer than the model&apos;s context, so the {0} oldest message(s) were left out of this reply.</source>
        <translation>对话长度超过了模型的上下文，因此本次回复略去了最早的 {0} 条消息。</translation>
    </message>
    <message>
        <source>Unknown engine {0!r}.</source>
        <translation>未知引擎 {0!r}。</translation>
    </message>
    <message>
        <source>The {0} engine is not installed in this edition of Hearth ({1}).</source>
        <translation>此版本的 Hearth 没有安装 {0} 引擎（{1}）。</translation>
    </message>
    <message>
        <source>The model file {0} does not exist.</source>
        <translation>模型文件 {0} 不存在。</translation>
    </message>
    <message>
        <source>A chat request needs at least one message.</source>
        <translation>聊天请求至少需要一条消息。</translation>
    </message>
    <message>
        <source>This model has no fill-in-the-middle tokens, so it cannot complete between a prefix and a suffix. Use a code model made for it.</source>
        <translation>此模型没有中间填充（fill-in-the-middle）标记，无法在前缀和后缀之间补全。请使用为此设计的代码模型。</translation>
    </message>
    <message>
        <source>llama.cpp could not load {0} with a context of {1} tokens ({2}). There may not be enough memory for that context (try a shorter one), or the file is not one this engine can read, or it is damaged.</source>
        <translation>llama.cpp 无法以 {1} 个 token 的上下文加载 {0}（{2}）。可能是内存不足以容纳该上下文（请尝试更短的上下文），或该文件不是此引擎能读取的格式，或文件已损坏。</translation>
    </message>
    <message>
        <source>The model&apos;s chat template rejected the conversation: {0}</source>
        <translation>模型的聊天模板拒绝了此对话：{0}</translation>
    </message>
    <message>
        <source>The prompt is empty: there is nothing to continue.</source>
        <translation>提示为空：没有可以续写的内容。</translation>
    </message>
    <message>
        <source>The request&apos;s grammar was refused: {0}</source>
        <translation>请求的语法被拒绝：{0}</translation>
    </message>
    <message>
        <source>This build of Hearth does not know where its runtime packs are published; set where they are listed in Settings › Engines.</source>
        <translation>此版本的 Hearth 不知道它的运行时包发布在哪里；请在 设置 › 推理引擎 中指定运行时包列表的位置。</translation>
    </message>
    <message>
        <source>This model reads text only, so it cannot see the pictures. Choose a model that reads images, or send the message without them.</source>
        <translation>此模型只能读取文字，看不到图片。请选择能读取图片的模型，或不带图片发送消息。</translation>
    </message>
    <message>
        <source>A sampling setting is not valid: {0}</source>
        <translation>采样设置无效：{0}</translation>
    </message>
    <message>
        <source>Input {0} has {1} tokens; this model embeds at most {2} at a time. Split it into shorter pieces.</source>
        <translation>输入 {0} 有 {1} 个标记；此模型一次最多嵌入 {2} 个。请把它拆成更短的片段。</translation>
    </message>
    <message>
        <source>The model could not make embeddings: {0}</source>
        <translation>模型无法生成嵌入向量：{0}</translation>
    </message>
    <message>
        <source>This model&apos;s image projector could not be used ({0}), so it reads text only. Download the projector again, or choose another.</source>
        <translation>无法使用此模型的图像投影器（{0}），因此它只能读取文字。请重新下载投影器，或选择其他模型。</translation>
    </message>
    <message>
        <source>Picture {0} has too many pixels to be read (at most {1} million). Make it smaller first.</source>
        <translation>图片 {0} 像素过多，无法读取（最多 {1} 百万像素）。请先缩小它。</translation>
    </message>
    <message>
        <source>Picture {0} could not be read: it is damaged, or not a PNG, JPEG, GIF, BMP or WebP file.</source>
        <translation>无法读取图片 {0}：文件已损坏，或不是 PNG、JPEG、GIF、BMP 或 WebP 文件。</translation>
    </message>
    <message>
        <source>Picture {0} is a {1} file.</source>
        <translation>图片 {0} 是 {1} 文件。</translation>
    </message>
    <message>
        <source>{0} answered {1}: {2}</source>
        <translation>{0} 返回 {1}：{2}</translation>
    </message>
    <message>
        <source>{0} refused the API key ({1}). Check the key saved for this endpoint.</source>
        <translation>{0} 拒绝了 API 密钥（{1}）。请检查为此端点保存的密钥。</translation>
    </message>
    <message>
        <source>{0} does not know that model or path (404): {1}</source>
        <translation>{0} 不认识该模型或路径（404）：{1}</translation>
    </message>
    <message>
        <source>The server has no model called {0!r}. It offers: {1}.</source>
        <translation>服务器上没有名为 {0!r} 的模型。它提供：{1}。</translation>
    </message>
    <message>
        <source>Hearth could not connect to {0} ({1}). Is the server running, and is the address right?</source>
        <translation>Hearth 无法连接 {0}（{1}）。服务器在运行吗？地址正确吗？</translation>
    </message>
    <message>
        <source>{0} did not answer within {1:.0f} s.</source>
        <translation>{0} 在 {1:.0f} 秒内没有响应。</translation>
    </message>
    <message>
        <source>Hearth could not connect to {0}.</source>
        <translation>Hearth 无法连接 {0}。</translation>
    </message>
    <message>
        <source>{0} stopped answering (no data for {1:.0f} s).</source>
        <translation>{0} 停止了响应（{1:.0f} 秒内没有数据）。</translation>
    </message>
    <message>
        <source>The connection to {0} broke in the middle of the reply; what arrived was kept.</source>
        <translation>与 {0} 的连接在回复中途断开；已收到的内容已保留。</translation>
    </message>
    <message>
        <source>The server reported an error: {0}</source>
        <translation>服务器报告了错误：{0}</translation>
    </message>
    <message>
        <source>runs on the CPU</source>
        <translation>在 CPU 上运行</translation>
    </message>
    <message>
        <source>built for llama-cpp-python {0}, but {1} is installed</source>
        <translation>为 llama-cpp-python {0} 构建，但安装的是 {1}</translation>
    </message>
    <message>
        <source>no {0} GPU was found (is the GPU&apos;s driver installed?)</source>
        <translation>未找到 {0} GPU（GPU 驱动是否已安装？）</translation>
    </message>
    <message>
        <source>The model&apos;s chat template ran away ({0} limit reached) and was stopped. This model file cannot be used as it is; choose another model.</source>
        <translation>模型的聊天模板失控（达到{0}上限），已被停止。此模型文件无法按原样使用；请选择其他模型。</translation>
    </message>
    <message>
        <source>time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>FlashAttention-2 needs an NVIDIA GPU and the flash-attn package.</source>
        <translation>FlashAttention-2 需要 NVIDIA GPU 和 flash-attn 包。</translation>
    </message>
    <message>
        <source>4-bit and 8-bit loading need an NVIDIA GPU (bitsandbytes).</source>
        <translation>4 位和 8 位加载需要 NVIDIA GPU（bitsandbytes）。</translation>
    </message>
    <message>
        <source>4-bit and 8-bit loading need the bitsandbytes package.</source>
        <translation>4 位和 8 位加载需要 bitsandbytes 包。</translation>
    </message>
    <message>
        <source>{0} is not a Hugging Face checkpoint (no config.json).</source>
        <translation>{0} 不是 Hugging Face 检查点（没有 config.json）。</translation>
    </message>
    <message>
        <source>{0} only has pickle weights ({1}). Loading a pickle can run code hidden in the file, so Hearth refuses unless you allow it for this model (Model settings…).</source>
        <translation>{0} 只有 pickle 权重（{1}）。加载 pickle 可能运行文件中隐藏的代码，因此除非你为此模型允许（模型设置…），否则 Hearth 会拒绝。</translation>
    </message>
    <message>
        <source>{0} has no weight files.</source>
        <translation>{0} 没有权重文件。</translation>
    </message>
    <message>
        <source>{0} has no tokenizer files ({1}). Download the whole checkpoint, not only the weights.</source>
        <translation>{0} 没有分词器文件（{1}）。请下载完整的检查点，而不只是权重。</translation>
    </message>
    <message>
        <source>{0} needs to run its own Python code ({1}). Hearth does not run a model&apos;s code without your consent.</source>
        <translation>{0} 需要运行自带的 Python 代码（{1}）。未经你同意，Hearth 不会运行模型的代码。</translation>
    </message>
    <message>
        <source>{0} is a {1!r} model, which transformers {2} does not support. Update transformers or use a GGUF of this model.</source>
        <translation>{0} 是 {1!r} 模型，transformers {2} 不支持。请更新 transformers，或使用此模型的 GGUF 版本。</translation>
    </message>
    <message>
        <source>JSON output (response_format) needs a GGUF model: llama.cpp keeps it to the schema by grammar, and this model runs in transformers.</source>
        <translation>JSON 输出（response_format）需要 GGUF 模型：llama.cpp 用语法约束使其符合模式，而此模型运行在 transformers 中。</translation>
    </message>
    <message>
        <source>Unknown quantization {0!r}.</source>
        <translation>未知的量化方式 {0!r}。</translation>
    </message>
    <message>
        <source>The tokenizer of {0} cannot be loaded ({1}).</source>
        <translation>无法加载 {0} 的分词器（{1}）。</translation>
    </message>
    <message>
        <source>{0} failed to load: {1}</source>
        <translation>{0} 加载失败：{1}</translation>
    </message>
    <message>
        <source>{0} cannot be loaded by transformers {1}: {2}</source>
        <translation>transformers {1} 无法加载 {0}：{2}</translation>
    </message>
    <message>
        <source>Forcing a tool call (tool_choice) needs a GGUF model: llama.cpp enforces it by grammar, and this model runs in transformers.</source>
        <translation>强制调用工具（tool_choice）需要 GGUF 模型：llama.cpp 用语法强制执行，而此模型运行在 transformers 中。</translation>
    </message>
    <message>
        <source>The {0} runtime could not load the model (on purpose).</source>
        <translation>{0} 运行时无法加载该模型（测试用的故意失败）。</translation>
    </message>
    <message>
        <source>{0} could not be imported: {1}</source>
        <translation>{0} 无法导入：{1}</translation>
    </message>
    <message>
        <source>A load request needs a model path.</source>
        <translation>加载请求需要模型路径。</translation>
    </message>
    <message>
        <source>The tool server {0} at {1} could not be reached ({2}). Check that it runs and its address; if it says 401 or 403, its key (Tool servers…) is wrong.</source>
        <translation>无法连接位于 {1} 的工具服务器 {0}（{2}）。请检查它是否在运行、地址是否正确；如果提示 401 或 403，说明它的密钥（工具服务器…）不对。</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>没有加载模型。</translation>
    </message>
    <message>
        <source>This engine process runs the {0} runtime; start a new one for {1}.</source>
        <translation>此引擎进程运行的是 {0} 运行时；请为 {1} 启动新的进程。</translation>
    </message>
    <message>
        <source>The llama.cpp runtime could not be used: {0}.</source>
        <translation>无法使用该 llama.cpp 运行时：{0}。</translation>
    </message>
    <message>
        <source>The {0} runtime was skipped: {1}.</source>
        <translation>已跳过 {0} 运行时：{1}。</translation>
    </message>
    <message>
        <source>The model ran out of memory. Try a smaller model or a shorter context length.</source>
        <translation>模型内存不足。请尝试更小的模型或更短的上下文长度。</translation>
    </message>
    <message>
        <source>The engine failed: {0}</source>
        <translation>引擎出错：{0}</translation>
    </message>
    <message>
        <source>This model&apos;s engine cannot make embeddings; use a GGUF model.</source>
        <translation>此模型的引擎无法生成嵌入向量；请使用 GGUF 模型。</translation>
    </message>
    <message>
        <source>Unknown request {0!r}.</source>
        <translation>未知请求 {0!r}。</translation>
    </message>
</context>
<context>
    <name>PictureTray</name>
    <message>
        <source>the pasted picture</source>
        <translation>粘贴的图片</translation>
    </message>
    <message>
        <source>A message carries at most {0} pictures.</source>
        <translation>一条消息最多带 {0} 张图片。</translation>
    </message>
    <message>
        <source>{0} cannot be attached: {1}</source>
        <translation>无法附加 {0}：{1}</translation>
    </message>
    <message>
        <source>Wait a moment: a picture is still being read.</source>
        <translation>请稍候：还有图片正在读取。</translation>
    </message>
    <message>
        <source>{0} reads text only as its Model settings say (Image projector: none). Choose its projector in Model settings…, or take the pictures out.</source>
        <translation>按照模型设置，{0} 只读取文字（图像投影器：无）。请在“模型设置…”中为它选择投影器，或移除这些图片。</translation>
    </message>
    <message>
        <source>{0} reads text only, so it cannot see pictures. Choose a model that reads them above: {1}.</source>
        <translation>{0} 只能读取文字，看不到图片。请在上方选择能读取图片的模型：{1}。</translation>
    </message>
    <message>
        <source>{0} reads text only, and no model here reads pictures. Download one in Models (Gemma 3, Qwen2.5-VL or SmolVLM, with its projector), or take the pictures out.</source>
        <translation>{0} 只能读取文字，而这里没有能读取图片的模型。请在“模型”中下载一个（Gemma 3、Qwen2.5-VL 或 SmolVLM，连同其投影器），或移除图片。</translation>
    </message>
</context>
<context>
    <name>Presets</name>
    <message>
        <source>Default</source>
        <translation>默认</translation>
    </message>
    <message>
        <source>Concise assistant</source>
        <translation>简洁助手</translation>
    </message>
    <message>
        <source>You are a helpful assistant. Answer briefly and precisely; use lists and tables when they make an answer clearer.</source>
        <translation>你是一个乐于助人的助手。回答要简洁准确；在列表和表格能让回答更清楚时使用它们。</translation>
    </message>
    <message>
        <source>Coding helper</source>
        <translation>编程助手</translation>
    </message>
    <message>
        <source>You are an expert programmer. Answer with correct, idiomatic code in fenced code blocks that name their language, then explain briefly.</source>
        <translation>你是一位资深程序员。请用标明语言的代码块给出正确、地道的代码，然后简要解释。</translation>
    </message>
    <message>
        <source>Translator (English ⇄ 中文)</source>
        <translation>翻译（English ⇄ 中文）</translation>
    </message>
    <message>
        <source>Translate the user&apos;s text between English and Simplified Chinese. Reply with the translation only.</source>
        <translation>在英文和简体中文之间翻译用户的文字。只回复译文。</translation>
    </message>
</context>
<context>
    <name>ProjectorChoice</name>
    <message>
        <source>Image projector</source>
        <translation>图像投影器</translation>
    </message>
    <message>
        <source>The projector (mmproj-*.gguf) through which this model reads pictures. Automatic: the one beside it.</source>
        <translation>此模型用来读取图片的投影器（mmproj-*.gguf）。自动：使用模型旁边的那个。</translation>
    </message>
    <message>
        <source>none found</source>
        <translation>未找到</translation>
    </message>
    <message>
        <source>Automatic ({0})</source>
        <translation>自动（{0}）</translation>
    </message>
    <message>
        <source>None: the model reads text only</source>
        <translation>无：模型只读取文字</translation>
    </message>
    <message>
        <source>Another file…</source>
        <translation>其他文件…</translation>
    </message>
    <message>
        <source>Choose the image projector</source>
        <translation>选择图像投影器</translation>
    </message>
    <message>
        <source>GGUF files (*.gguf)</source>
        <translation>GGUF 文件（*.gguf）</translation>
    </message>
</context>
<context>
    <name>RemoteCodeDialog</name>
    <message>
        <source>Run this model&apos;s own code?</source>
        <translation>运行此模型自带的代码？</translation>
    </message>
    <message>
        <source>{0} comes with Python code ({1}) that transformers would run on your computer with your permissions. Allow it only if you trust where the model comes from. Hearth remembers your answer for exactly this code; if the files change, it asks again.</source>
        <translation>{0} 附带 Python 代码（{1}），transformers 会以你的权限在你的电脑上运行它。只有在你信任模型来源时才允许。Hearth 会针对这份代码记住你的选择；如果文件发生变化，会再次询问。</translation>
    </message>
</context>
<context>
    <name>SearchPanel</name>
    <message>
        <source>Search all conversations (Ctrl+F)</source>
        <translation>搜索所有对话（Ctrl+F）</translation>
    </message>
    <message>
        <source>Search conversations</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <source>Search results</source>
        <translation>搜索结果</translation>
    </message>
    <message>
        <source>{0} matches</source>
        <translation>{0} 处匹配</translation>
    </message>
    <message>
        <source>Nothing found for “{0}”.</source>
        <translation>没有找到“{0}”。</translation>
    </message>
</context>
<context>
    <name>Settings</name>
    <message>
        <source>Models folder</source>
        <translation>模型文件夹</translation>
    </message>
    <message>
        <source>Folder where Hearth looks for and keeps GGUF models. Empty: the &apos;models&apos; folder inside Hearth&apos;s data folder.</source>
        <translation>Hearth 查找和存放 GGUF 模型的文件夹。留空：Hearth 数据文件夹中的“models”文件夹。</translation>
    </message>
    <message>
        <source>the &apos;models&apos; folder inside Hearth&apos;s data folder</source>
        <translation>Hearth 数据文件夹中的 models 文件夹</translation>
    </message>
    <message>
        <source>Other model files and folders</source>
        <translation>其他模型文件和文件夹</translation>
    </message>
    <message>
        <source>GGUF files or checkpoint folders to use in place, one per line.</source>
        <translation>直接使用的 GGUF 文件或检查点文件夹，每行一个。</translation>
    </message>
    <message>
        <source>Use models from other apps</source>
        <translation>使用其他应用的模型</translation>
    </message>
    <message>
        <source>List models that the Hugging Face and ModelScope caches, LM Studio, Ollama and GPT4All already downloaded. They are used where they are, never copied.</source>
        <translation>列出 Hugging Face 和 ModelScope 缓存、LM Studio、Ollama 和 GPT4All 已下载的模型。它们在原位置使用，从不复制。</translation>
    </message>
    <message>
        <source>Context length (tokens)</source>
        <translation>上下文长度（token）</translation>
    </message>
    <message>
        <source>How much conversation the model sees at once. Longer needs more memory. When a conversation is longer, the oldest messages are left out (the system prompt is always kept).</source>
        <translation>模型一次能看到多少对话内容。越长需要的内存越多。对话更长时，最早的消息会被略去（系统提示词始终保留）。</translation>
    </message>
    <message>
        <source>Replies at once (per model)</source>
        <translation>同时回复数（每个模型）</translation>
    </message>
    <message>
        <source>How many replies one model writes at the same time: the chat beside other apps using Hearth&apos;s server, or several requests from one app. Each reply has the whole context length of its own, so the memory for the context is counted this many times; Hearth uses fewer where more would not fit (GPU first). 1 answers one request after another. GGUF models only.</source>
        <translation>一个模型同时撰写的回复数：聊天与通过 Hearth 服务器使用模型的其他应用并行，或同一应用的多个请求。每个回复都有自己完整的上下文长度，因此上下文所需内存按此数计算；装不下时 Hearth 会自动减少（优先保证 GPU）。设为 1 则逐个回答请求。仅适用于 GGUF 模型。</translation>
    </message>
    <message>
        <source>Keep conversations&apos; prompt cache on disk</source>
        <translation>在磁盘上保留对话的提示词缓存</translation>
    </message>
    <message>
        <source>Hearth keeps what a model has read of recent conversations in memory, so going back to one answers at once instead of reading it all again. On: also on disk in the data folder (up to 4 GB, every model together), for more conversations and after a restart. GGUF models only.</source>
        <translation>Hearth 会在内存中保留模型已读过的近期对话内容，回到某个对话时可以立即回答，而不必全部重读。开启后：也保存在数据文件夹的磁盘上（所有模型合计最多 4 GB），可容纳更多对话，重启后仍然有效。仅适用于 GGUF 模型。</translation>
    </message>
    <message>
        <source>Refuse models that will not fit</source>
        <translation>拒绝装不下的模型</translation>
    </message>
    <message>
        <source>Before loading, Hearth estimates the memory a model needs with the chosen context length and refuses one that cannot fit in this computer&apos;s memory, instead of letting the system run out of memory. Turn this off to try anyway.</source>
        <translation>加载前，Hearth 会按所选的上下文长度估算模型所需的内存，并拒绝这台电脑内存装不下的模型，以免系统内存耗尽。关闭此项则仍会尝试加载。</translation>
    </message>
    <message>
        <source>CPU threads</source>
        <translation>CPU 线程数</translation>
    </message>
    <message>
        <source>Threads used for generation. 0 picks the number of physical cores.</source>
        <translation>生成时使用的线程数。0 表示使用物理核心数。</translation>
    </message>
    <message>
        <source>Automatic (physical cores)</source>
        <translation>自动（物理核心数）</translation>
    </message>
    <message>
        <source>Where llama.cpp runtime packs are listed</source>
        <translation>llama.cpp 运行时包列表的位置</translation>
    </message>
    <message>
        <source>The web address, file or folder of the list of llama.cpp runtime packs (CUDA) that Hearth can add. Read only when you install a pack. Empty: the list published with this version of Hearth on its release page.</source>
        <translation>Hearth 可以添加的 llama.cpp 运行时包（CUDA）列表所在的网址、文件或文件夹。仅在安装运行时包时读取。留空：使用此版本 Hearth 在其发布页面上发布的列表。</translation>
    </message>
    <message>
        <source>the list on this version&apos;s release page</source>
        <translation>此版本发布页面上的列表</translation>
    </message>
    <message>
        <source>Runtime pack mirror</source>
        <translation>运行时包镜像</translation>
    </message>
    <message>
        <source>A web address or folder holding copies of the release&apos;s runtime packs. Tried first for the packs, the list&apos;s own place after it. The list itself is never read from the mirror, and every pack is checked against the list&apos;s SHA-256 before it is used, so a mirror cannot change a pack.</source>
        <translation>存放此版本运行时包副本的网址或文件夹。下载包时先尝试它，再尝试列表本身所在的位置。列表本身从不从镜像读取，且每个包在使用前都会按列表中的 SHA-256 校验，因此镜像无法篡改包。</translation>
    </message>
    <message>
        <source>none: the release page only</source>
        <translation>无：只使用发布页面</translation>
    </message>
    <message>
        <source>PyPI mirror for the PyTorch engine</source>
        <translation>PyTorch 引擎的 PyPI 镜像</translation>
    </message>
    <message>
        <source>A package index that mirrors PyPI (its simple index, e.g. https://pypi.tuna.tsinghua.edu.cn/simple), tried first when the PyTorch engine is installed. Every file is checked against the SHA-256 Hearth&apos;s lock file names, so a mirror cannot change the engine.</source>
        <translation>镜像 PyPI 的软件包索引（例如 https://pypi.tuna.tsinghua.edu.cn/simple），安装 PyTorch 引擎时会先尝试它。每个文件都会按 Hearth 锁定文件中的 SHA-256 校验，因此镜像无法篡改引擎。</translation>
    </message>
    <message>
        <source>none: PyPI itself</source>
        <translation>无：直接使用 PyPI</translation>
    </message>
    <message>
        <source>PyTorch index mirror</source>
        <translation>PyTorch 索引镜像</translation>
    </message>
    <message>
        <source>A copy of the PyTorch index&apos;s folders (cpu/, cu130/…, e.g. https://mirrors.aliyun.com/pytorch-wheels/), tried first for the wheels that come from download.pytorch.org. Checked against the lock file&apos;s SHA-256 like any other.</source>
        <translation>PyTorch 索引各文件夹的副本（cpu/、cu130/…，例如 https://mirrors.aliyun.com/pytorch-wheels/），来自 download.pytorch.org 的安装包会先从这里获取。与其他来源一样，按锁定文件中的 SHA-256 校验。</translation>
    </message>
    <message>
        <source>none: download.pytorch.org itself</source>
        <translation>无：直接使用 download.pytorch.org</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Randomness of the reply. 0 always picks the most likely word.</source>
        <translation>回复的随机程度。0 表示总是选择最可能的词。</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Only words within this share of probability are considered.</source>
        <translation>只考虑累计概率在此比例内的词。</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>Only the k most likely words are considered. 0 turns this off.</source>
        <translation>只考虑最可能的 k 个词。0 表示关闭。</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Min-p</source>
        <translation>Min-p</translation>
    </message>
    <message>
        <source>Words less likely than this fraction of the best one are skipped.</source>
        <translation>概率低于最佳词的这一比例的词会被跳过。</translation>
    </message>
    <message>
        <source>Repeat penalty</source>
        <translation>重复惩罚</translation>
    </message>
    <message>
        <source>Discourages repeating the same words. 1 turns this off.</source>
        <translation>抑制重复相同的词。1 表示关闭。</translation>
    </message>
    <message>
        <source>Maximum reply length (tokens)</source>
        <translation>最大回复长度（token）</translation>
    </message>
    <message>
        <source>0 lets the reply run until the model stops or the context is full.</source>
        <translation>0 表示一直生成，直到模型停止或上下文已满。</translation>
    </message>
    <message>
        <source>No limit</source>
        <translation>不限</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>The same seed, model and settings give the same reply. -1 picks a new one each time.</source>
        <translation>相同的种子、模型和设置会得到相同的回复。-1 表示每次随机选择。</translation>
    </message>
    <message>
        <source>Random each time</source>
        <translation>每次随机</translation>
    </message>
    <message>
        <source>Hugging Face address</source>
        <translation>Hugging Face 地址</translation>
    </message>
    <message>
        <source>Where Hearth finds Hugging Face models, e.g. a mirror such as https://hf-mirror.com. Empty: $HF_ENDPOINT, else https://huggingface.co.</source>
        <translation>Hearth 查找 Hugging Face 模型的地址，例如镜像 https://hf-mirror.com。留空：使用 $HF_ENDPOINT，否则为 https://huggingface.co。</translation>
    </message>
    <message>
        <source>https://huggingface.co (or $HF_ENDPOINT)</source>
        <translation>https://huggingface.co（或 $HF_ENDPOINT）</translation>
    </message>
    <message>
        <source>ModelScope address</source>
        <translation>ModelScope 地址</translation>
    </message>
    <message>
        <source>Where Hearth finds ModelScope models. Empty: $MODELSCOPE_ENDPOINT, else https://www.modelscope.cn.</source>
        <translation>Hearth 查找 ModelScope 模型的地址。留空：使用 $MODELSCOPE_ENDPOINT，否则为 https://www.modelscope.cn。</translation>
    </message>
    <message>
        <source>https://www.modelscope.cn (or $MODELSCOPE_ENDPOINT)</source>
        <translation>https://www.modelscope.cn（或 $MODELSCOPE_ENDPOINT）</translation>
    </message>
    <message>
        <source>Check the recommended models on the hub daily</source>
        <translation>每天在模型站核对推荐模型</translation>
    </message>
    <message>
        <source>Once a day, ask the hub (ModelScope on a Chinese locale, else Hugging Face) for today&apos;s file names and sizes of the models in Hearth&apos;s catalogue, so the recommendations and their fit are current. Only those repositories are asked for; nothing about you. Off: the catalogue shipped with Hearth is used until you press Check the hub on the Models screen.</source>
        <translation>每天一次，向模型站（中文环境下为 ModelScope，否则为 Hugging Face）查询 Hearth 目录中各模型当前的文件名和大小，使推荐及其适配判断保持最新。只查询这些仓库，不涉及任何关于你的信息。关闭时：使用 Hearth 随附的目录，直到你在“模型”页面按下“在模型站检查”。</translation>
    </message>
    <message>
        <source>API server address</source>
        <translation>API 服务器地址</translation>
    </message>
    <message>
        <source>Where Hearth&apos;s API listens (Chat › API server, and `hearth serve` without --host). 127.0.0.1: only programs on this computer can reach it. Another address (0.0.0.0 for every network) requires an API key.</source>
        <translation>Hearth 的 API 监听的地址（聊天 › API 服务器，以及未指定 --host 的 `hearth serve`）。127.0.0.1：只有这台电脑上的程序可以访问。其他地址（0.0.0.0 表示所有网络）需要 API 密钥。</translation>
    </message>
    <message>
        <source>API server port</source>
        <translation>API 服务器端口</translation>
    </message>
    <message>
        <source>The port of Hearth&apos;s API (Chat › API server, and `hearth serve` without --port).</source>
        <translation>Hearth 的 API 端口（聊天 › API 服务器，以及未指定 --port 的 `hearth serve`）。</translation>
    </message>
    <message>
        <source>Memory for loaded models (GB)</source>
        <translation>已加载模型的内存 (GB)</translation>
    </message>
    <message>
        <source>How much RAM the models Hearth keeps loaded may take together: the chat&apos;s, those the API (`hearth serve`, or Chat › Serve the API) loads, and the documents&apos; embedding model. When a model does not fit, the least recently used idle one is unloaded first. 0: four fifths of the memory free when the first model loads. GPU memory is budgeted from the GPUs&apos; free memory.</source>
        <translation>Hearth 保持加载的所有模型合计可以占用多少内存：聊天的模型、API（`hearth serve` 或“聊天 › 提供 API”）加载的模型，以及文档的嵌入模型。某个模型放不下时，先卸载最久未用的空闲模型。0：首个模型加载时可用内存的五分之四。GPU 显存按各 GPU 的可用显存计算。</translation>
    </message>
    <message>
        <source>Automatic (4/5 of free memory)</source>
        <translation>自动（空闲内存的五分之四）</translation>
    </message>
    <message>
        <source>Keep idle API models loaded (minutes)</source>
        <translation>空闲 API 模型保持加载（分钟）</translation>
    </message>
    <message>
        <source>A model that `hearth serve` loaded for a request is unloaded after this long without requests (a request may ask for another time, as Ollama&apos;s keep_alive does). 0: unload as soon as a request is answered.</source>
        <translation>`hearth serve` 为请求加载的模型在这么长时间没有请求后卸载（请求可以像 Ollama 的 keep_alive 那样指定别的时间）。0：请求一答完就卸载。</translation>
    </message>
    <message>
        <source>Unload at once</source>
        <translation>立即卸载</translation>
    </message>
    <message>
        <source>Passages per question</source>
        <translation>每个问题的段落数</translation>
    </message>
    <message>
        <source>How many passages of the chosen collections are given to the model with each question, the best first (fewer when they do not fit in its context).</source>
        <translation>每个问题从所选文档集中交给模型的段落数，最相关的在前（放不进上下文时会少一些）。</translation>
    </message>
    <message>
        <source>Embedding model for documents</source>
        <translation>文档嵌入模型</translation>
    </message>
    <message>
        <source>A GGUF embedding model (its name in the library, or a path) whose vectors are searched beside the words of your documents, to find passages that say the same thing in other words. It runs in a worker process of its own. Empty: word search only, which works in every language with no model.</source>
        <translation>一个 GGUF 嵌入模型（模型库中的名称或路径），在按词搜索文档的同时按其向量搜索，以找到用不同措辞表达同一意思的段落。它在自己的工作进程中运行。留空：只按词搜索，无需模型即可用于所有语言。</translation>
    </message>
    <message>
        <source>none: word search only</source>
        <translation>无：只按词搜索</translation>
    </message>
    <message>
        <source>Tool calls per reply</source>
        <translation>每次回复的工具调用次数</translation>
    </message>
    <message>
        <source>How many tools a model may call while writing one reply (MCP servers and Hearth&apos;s own tools). Past it, calls are not run and the model is asked to answer with what it has.</source>
        <translation>模型在写一条回复时最多可以调用多少次工具（MCP 服务器和 Hearth 自带的工具）。超过后，调用不会运行，模型会被要求根据已有信息作答。</translation>
    </message>
    <message>
        <source>Tool call time limit (seconds)</source>
        <translation>工具调用时限（秒）</translation>
    </message>
    <message>
        <source>How long a tool may take to answer before its call is stopped and the model is told it timed out.</source>
        <translation>工具最多可用多长时间作答；超时后调用会被停止，并告诉模型已超时。</translation>
    </message>
    <message>
        <source>Downloads at once</source>
        <translation>同时下载数</translation>
    </message>
    <message>
        <source>How many files download at the same time; the others wait in the queue.</source>
        <translation>同时下载的文件数；其余的在队列中等待。</translation>
    </message>
    <message>
        <source>Connections at once</source>
        <translation>同时连接数</translation>
    </message>
    <message>
        <source>How many connections the downloads open together: a file comes as several pieces at once, since a hub gives each connection only part of the line&apos;s speed. The files downloading at once share them. A server that says it is busy gets fewer.</source>
        <translation>所有下载共同打开的连接数：模型库只给每个连接一部分线路速度，因此一个文件会分成几段同时下载。同时下载的文件共享这些连接。服务器表示繁忙时会减少连接。</translation>
    </message>
    <message>
        <source>Download speed limit (MB/s)</source>
        <translation>下载限速（MB/秒）</translation>
    </message>
    <message>
        <source>The most all downloads together may take from the network each second, to leave room for other programs. 0: no limit.</source>
        <translation>所有下载每秒合计最多占用的网络流量，为其他程序留出余量。0：不限速。</translation>
    </message>
    <message>
        <source>Send the model&apos;s thinking back to it</source>
        <translation>把模型的思考过程发回给模型</translation>
    </message>
    <message>
        <source>Reasoning models (DeepSeek-R1, QwQ…) write their thinking before the answer. By default only the answers are sent back in later turns, as their authors advise; this also sends the thinking (it fills the context faster).</source>
        <translation>推理模型（DeepSeek-R1、QwQ…）会在回答前写出思考过程。默认情况下，按照模型作者的建议，后续轮次只发回回答；开启后也会发回思考过程（上下文会更快占满）。</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>Light or dark; &apos;system&apos; follows the operating system.</source>
        <translation>浅色或深色；“跟随系统”与操作系统一致。</translation>
    </message>
    <message>
        <source>Conversation font size (points)</source>
        <translation>对话字号（磅）</translation>
    </message>
    <message>
        <source>Size of the text in conversations and the message box. 0 uses the system size.</source>
        <translation>对话和消息框中文字的大小。0 表示使用系统字号。</translation>
    </message>
    <message>
        <source>System size</source>
        <translation>系统大小</translation>
    </message>
    <message>
        <source>Wrap long code lines</source>
        <translation>长代码行自动换行</translation>
    </message>
    <message>
        <source>Off: a long code line stays one line and scrolls inside its block (Shift+wheel, a sideways swipe, or the block&apos;s scroll bar). On: it wraps, and the code is text you can select in part, move through with the keyboard and have read aloud.</source>
        <translation>关闭：过长的代码行保持为一行，在代码块内横向滚动（Shift+滚轮、横向轻扫，或代码块自己的滚动条）。开启：代码自动换行，成为可以部分选中、用键盘浏览、由读屏软件朗读的文字。</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Language of Hearth&apos;s windows; &apos;system&apos; follows the operating system. Takes effect the next time Hearth starts.</source>
        <translation>Hearth 界面的语言；“跟随系统”与操作系统一致。下次启动 Hearth 时生效。</translation>
    </message>
    <message>
        <source>Check for new versions of Hearth</source>
        <translation>检查 Hearth 的新版本</translation>
    </message>
    <message>
        <source>Once a day, ask where Hearth is released whether a newer version is out, and say so in the status bar and the About box. Only that request is sent: nothing about you, your chats or your models. Hearth never downloads or installs anything by itself.</source>
        <translation>每天一次向 Hearth 的发布处询问是否有新版本，并在状态栏和“关于”对话框中告知。只发送这一个请求：不包含关于您、您的对话或模型的任何信息。Hearth 从不自行下载或安装任何东西。</translation>
    </message>
    <message>
        <source>Instructions for new conversations</source>
        <translation>新对话的指令</translation>
    </message>
    <message>
        <source>Instructions given to the model at the start of every new conversation (the system prompt); each conversation can change its own under Chat › Instructions.</source>
        <translation>每个新对话开始时交给模型的指令（系统提示词）；每个对话都可以在“聊天 › 指令”中修改自己的指令。</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>General</source>
        <translation>常规</translation>
    </message>
    <message>
        <source>Chat</source>
        <translation>聊天</translation>
    </message>
    <message>
        <source>Models and downloads</source>
        <translation>模型与下载</translation>
    </message>
    <message>
        <source>Engines</source>
        <translation>推理引擎</translation>
    </message>
    <message>
        <source>Documents</source>
        <translation>文档</translation>
    </message>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>API server</source>
        <translation>API 服务器</translation>
    </message>
    <message>
        <source>Privacy and updates</source>
        <translation>隐私与更新</translation>
    </message>
    <message>
        <source>Advanced</source>
        <translation>高级</translation>
    </message>
    <message>
        <source>More</source>
        <translation>更多</translation>
    </message>
    <message>
        <source>The chat&apos;s model uses it and is writing a reply: wait for the reply to finish (or press Stop), then remove it.</source>
        <translation>对话中的模型正在使用它并在写回复：请等待回复完成（或按“停止”）后再移除。</translation>
    </message>
    <message>
        <source>{0} uses it and is answering a program that uses Hearth&apos;s server: unload it in Loaded models once it has finished, then remove it.</source>
        <translation>{0} 正在使用它，并在应答一个使用 Hearth 服务器的程序：请在它完成后于“已加载的模型”中卸载它，然后再删除。</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Search settings</source>
        <translation>搜索设置</translation>
    </message>
    <message>
        <source>Settings sections</source>
        <translation>设置分类</translation>
    </message>
    <message>
        <source>Open the API server panel…</source>
        <translation>打开 API 服务器面板…</translation>
    </message>
    <message>
        <source>No setting matches “{0}”.</source>
        <translation>没有与“{0}”匹配的设置。</translation>
    </message>
    <message>
        <source>Tool servers and approvals…</source>
        <translation>工具服务器和授权…</translation>
    </message>
    <message>
        <source>Not saved: {0}.</source>
        <translation>未保存：{0}。</translation>
    </message>
</context>
<context>
    <name>SourcePreview</name>
    <message>
        <source>Source [{0}]: {1}</source>
        <translation>来源 [{0}]：{1}</translation>
    </message>
    <message>
        <source>Open the file</source>
        <translation>打开文件</translation>
    </message>
    <message>
        <source>The file is no longer where it was.</source>
        <translation>该文件已不在原来的位置。</translation>
    </message>
    <message>
        <source>The whole of {0} was given to the model.</source>
        <translation>{0} 的全文已交给模型。</translation>
    </message>
    <message>
        <source>This passage of {0} (collection {1}) was given to the model.</source>
        <translation>{0}（文档集 {1}）的这一段已交给模型。</translation>
    </message>
    <message>
        <source>This passage of {0} was given to the model.</source>
        <translation>{0} 的这一段已交给模型。</translation>
    </message>
</context>
<context>
    <name>StartupNotes</name>
    <message>
        <source>Hearth was closed while writing this reply. What was written is kept; Continue goes on with it.</source>
        <translation>Hearth 在写这条回复时被关闭。已写的内容都保留了；点“继续”可接着写。</translation>
    </message>
    <message>
        <source>Hearth was closed while writing {0} replies. What was written is kept; Continue goes on with each.</source>
        <translation>Hearth 在写 {0} 条回复时被关闭。已写的内容都保留了；点“继续”可分别接着写。</translation>
    </message>
</context>
<context>
    <name>SystemScreen</name>
    <message>
        <source>Checking this machine…</source>
        <translation>正在检查本机…</translation>
    </message>
    <message>
        <source>Check again</source>
        <translation>重新检查</translation>
    </message>
    <message>
        <source>Copy report</source>
        <translation>复制报告</translation>
    </message>
    <message>
        <source>Copy a plain-text report for a bug report</source>
        <translation>复制纯文本报告，用于提交问题</translation>
    </message>
    <message>
        <source>Engines…</source>
        <translation>推理引擎…</translation>
    </message>
    <message>
        <source>Settings › Engines: install or remove the PyTorch engine and runtimes</source>
        <translation>设置 › 推理引擎：安装或移除 PyTorch 引擎和运行时</translation>
    </message>
    <message>
        <source>System checks</source>
        <translation>系统检查</translation>
    </message>
    <message>
        <source>Technical details, for bug reports (Copy report sends them in English):</source>
        <translation>技术细节，供错误报告使用（“复制报告”会以英文发送）：</translation>
    </message>
    <message>
        <source>Technical details</source>
        <translation>技术细节</translation>
    </message>
    <message>
        <source>The check could not finish.</source>
        <translation>检查未能完成。</translation>
    </message>
    <message>
        <source>checking the system</source>
        <translation>检查系统</translation>
    </message>
    <message>
        <source>Everything looks fine.</source>
        <translation>一切正常。</translation>
    </message>
    <message numerus="yes">
        <source>%n thing(s) need attention.</source>
        <translation>
            <numerusform>有 %n 项需要注意。</numerusform>
        </translation>
    </message>
    <message>
        <source>What to do: {0}</source>
        <translation>处理方法：{0}</translation>
    </message>
    <message>
        <source>Open Settings › Engines</source>
        <translation>打开 设置 › 推理引擎</translation>
    </message>
    <message>
        <source>Report copied to the clipboard.</source>
        <translation>报告已复制到剪贴板。</translation>
    </message>
</context>
<context>
    <name>ToolApprovalDialog</name>
    <message>
        <source>Allow a tool call?</source>
        <translation>允许这次工具调用吗？</translation>
    </message>
    <message>
        <source>The model wants to use &lt;b&gt;{0}&lt;/b&gt; from the tool server &lt;b&gt;{1}&lt;/b&gt;.</source>
        <translation>模型想使用工具服务器 &lt;b&gt;{1}&lt;/b&gt; 中的 &lt;b&gt;{0}&lt;/b&gt;。</translation>
    </message>
    <message>
        <source>Its server says this tool {0}.</source>
        <translation>它的服务器声明此工具{0}。</translation>
    </message>
    <message>
        <source>Its server says this tool only reads, on this computer.</source>
        <translation>它的服务器声明此工具只在这台电脑上读取信息。</translation>
    </message>
    <message>
        <source>Arguments:</source>
        <translation>参数：</translation>
    </message>
    <message>
        <source>The arguments of the call</source>
        <translation>本次调用的参数</translation>
    </message>
    <message>
        <source>Allow once</source>
        <translation>允许一次</translation>
    </message>
    <message>
        <source>Always allow this tool</source>
        <translation>始终允许此工具</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>拒绝</translation>
    </message>
</context>
<context>
    <name>ToolServersDialog</name>
    <message>
        <source>Tool servers</source>
        <translation>工具服务器</translation>
    </message>
    <message>
        <source>MCP servers give the model tools. Hearth starts a server once when you add it, to list its tools, and then when a chat that may use it needs it (choose them with Tools under the message box), and asks you before every call. A server&apos;s own network use is its own.</source>
        <translation>MCP 服务器为模型提供工具。添加服务器时，Hearth 会启动它一次以列出其工具；之后只有当可以使用它的对话需要它时才会启动（在消息框下方的“工具”中选择），并在每次调用前询问你。服务器自身的联网行为由服务器负责。</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Add servers: paste their mcpServers JSON</source>
        <translation>添加服务器：粘贴它们的 mcpServers JSON</translation>
    </message>
    <message>
        <source>mcpServers JSON to add</source>
        <translation>要添加的 mcpServers JSON</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Open a file…</source>
        <translation>打开文件…</translation>
    </message>
    <message>
        <source>Always allowed (no question before a call):</source>
        <translation>始终允许（调用前不再询问）：</translation>
    </message>
    <message>
        <source>Tools always allowed</source>
        <translation>始终允许的工具</translation>
    </message>
    <message>
        <source>Ask again</source>
        <translation>重新询问</translation>
    </message>
    <message>
        <source>Add tool servers</source>
        <translation>添加工具服务器</translation>
    </message>
    <message>
        <source>JSON (*.json);;All files (*)</source>
        <translation>JSON (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Hearth could not read {0} ({1}).</source>
        <translation>Hearth 无法读取 {0}（{1}）。</translation>
    </message>
    <message>
        <source>starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>started, {0} tools: {1}</source>
        <translation>已启动，{0} 个工具：{1}</translation>
    </message>
    <message>
        <source>started, but it offers no tools</source>
        <translation>已启动，但它不提供任何工具</translation>
    </message>
    <message>
        <source>it did not list its tools within {0:g} s</source>
        <translation>它未在 {0:g} 秒内列出自己的工具</translation>
    </message>
    <message>
        <source>did not start: {0}</source>
        <translation>未能启动：{0}</translation>
    </message>
</context>
<context>
    <name>TranscriptView</name>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Interrupted before it was finished</source>
        <translation>未完成即被中断</translation>
    </message>
    <message>
        <source>Cut at the token limit</source>
        <translation>已达到 token 上限而截断</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Writing…</source>
        <translation>正在写…</translation>
    </message>
    <message>
        <source>{0:.1f} tok/s</source>
        <translation>{0:.1f} token/秒</translation>
    </message>
    <message>
        <source>first token {0:.2f} s</source>
        <translation>首个 token {0:.2f} 秒</translation>
    </message>
    <message>
        <source>{0} tokens</source>
        <translation>{0} 个 token</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Show {0} earlier messages</source>
        <translation>显示更早的 {0} 条消息</translation>
    </message>
    <message>
        <source>{0} of {1} prompt tokens reused</source>
        <translation>复用了 {1} 个提示词元中的 {0} 个</translation>
    </message>
    <message>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <source>System</source>
        <translation>系统</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>(editing)</source>
        <translation>（正在编辑）</translation>
    </message>
    <message>
        <source>Thinking…</source>
        <translation>思考中…</translation>
    </message>
    <message>
        <source>Thoughts</source>
        <translation>思考过程</translation>
    </message>
    <message>
        <source>Thought for {0:.1f} s</source>
        <translation>思考了 {0:.1f} 秒</translation>
    </message>
    <message>
        <source>Copy (Markdown)</source>
        <translation>复制（Markdown）</translation>
    </message>
    <message>
        <source>Copy as text</source>
        <translation>复制为纯文本</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
    <message>
        <source>Continue</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Previous version</source>
        <translation>上一个版本</translation>
    </message>
    <message>
        <source>Next version</source>
        <translation>下一个版本</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
    <message>
        <source>{0}, page {1}</source>
        <translation>{0}，第 {1} 页</translation>
    </message>
    <message>
        <source>whole</source>
        <translation>全文</translation>
    </message>
    <message>
        <source>passages</source>
        <translation>段落</translation>
    </message>
    <message>
        <source>Attached: {0} · {1:,} tokens · {2}</source>
        <translation>附件：{0} · {1:,} 个词元 · {2}</translation>
    </message>
    <message>
        <source>Collections: {0}</source>
        <translation>文档集：{0}</translation>
    </message>
    <message>
        <source>cited</source>
        <translation>已引用</translation>
    </message>
    <message>
        <source>used as context</source>
        <translation>作为上下文使用</translation>
    </message>
    <message>
        <source>Sources</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>timed out</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>denied</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>could not be read</source>
        <translation>无法读取</translation>
    </message>
    <message>
        <source>not run: call limit</source>
        <translation>未运行：达到调用上限</translation>
    </message>
    <message>
        <source>waiting…</source>
        <translation>等待中…</translation>
    </message>
    <message>
        <source>Tools: {0} call(s)</source>
        <translation>工具：{0} 次调用</translation>
    </message>
    <message>
        <source>… {0:,} more characters</source>
        <translation>… 还有 {0:,} 个字符</translation>
    </message>
    <message>
        <source>Arguments</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
</context>
<context>
    <name>UndoBar</name>
    <message>
        <source>What was just done</source>
        <translation>刚刚执行的操作</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
</context>
<context>
    <name>UpdateChecker</name>
    <message>
        <source>Hearth {0} is available</source>
        <translation>Hearth {0} 已发布</translation>
    </message>
    <message>
        <source>Checking for new versions is off (Settings).</source>
        <translation>新版本检查已关闭（设置）。</translation>
    </message>
    <message>
        <source>Checking for a new version…</source>
        <translation>正在检查新版本…</translation>
    </message>
    <message>
        <source>: read about it and download it from its page.</source>
        <translation>：可在其页面了解详情并下载。</translation>
    </message>
    <message>
        <source>This is the newest version.</source>
        <translation>这是最新版本。</translation>
    </message>
    <message>
        <source>Hearth checked for new versions less than a day ago.</source>
        <translation>Hearth 在不到一天前检查过新版本。</translation>
    </message>
    <message>
        <source>Could not check for a new version: {0}.</source>
        <translation>无法检查新版本：{0}。</translation>
    </message>
    <message>
        <source>unknown error</source>
        <translation>未知错误</translation>
    </message>
</context>
<context>
    <name>UpdateOffer</name>
    <message>
        <source>May Hearth check once a day whether a new version is out? Only that question is sent: nothing about you, your chats or your models. Hearth never downloads or installs anything by itself. (You can change this in Settings.)</source>
        <translation>是否允许 Hearth 每天检查一次有没有新版本？只发送这一个询问：不包含关于您、您的对话或模型的任何信息。Hearth 从不自行下载或安装任何东西。（可在“设置”中更改。）</translation>
    </message>
    <message>
        <source>Check for new versions</source>
        <translation>检查新版本</translation>
    </message>
    <message>
        <source>No, thanks</source>
        <translation>不用了</translation>
    </message>
</context>
<context>
    <name>VariantDialog</name>
    <message>
        <source>CPU: runs on any computer</source>
        <translation>CPU：任何电脑都能运行</translation>
    </message>
    <message>
        <source>CUDA: on an NVIDIA GPU</source>
        <translation>CUDA：在 NVIDIA GPU 上运行</translation>
    </message>
    <message>
        <source>ROCm: on an AMD GPU</source>
        <translation>ROCm：在 AMD GPU 上运行</translation>
    </message>
    <message>
        <source>MPS: on the GPU of Apple silicon</source>
        <translation>MPS：在 Apple 芯片的 GPU 上运行</translation>
    </message>
    <message>
        <source>Install the PyTorch engine</source>
        <translation>安装 PyTorch 引擎</translation>
    </message>
    <message>
        <source>Which build of the PyTorch engine should Hearth install? The one suggested for this computer is chosen.</source>
        <translation>要安装哪个版本的 PyTorch 引擎？已选中为这台电脑推荐的版本。</translation>
    </message>
    <message>
        <source>{0} ({1} to download)</source>
        <translation>{0}（需下载 {1}）</translation>
    </message>
    <message>
        <source>suggested</source>
        <translation>推荐</translation>
    </message>
    <message>
        <source>installed now</source>
        <translation>当前已安装</translation>
    </message>
    <message>
        <source>Cannot run here: {0}.</source>
        <translation>无法在这里运行：{0}。</translation>
    </message>
    <message>
        <source>An interrupted download goes on where it stopped. Nothing changes until the new engine has been checked on this computer.</source>
        <translation>下载中断后会从中断处继续。在新引擎通过这台电脑上的检查之前，不会做任何更改。</translation>
    </message>
    <message>
        <source>Install</source>
        <translation>安装</translation>
    </message>
</context>
<context>
    <name>WelcomePanel</name>
    <message>
        <source>Welcome to Hearth</source>
        <translation>欢迎使用 Hearth</translation>
    </message>
    <message>
        <source>Hearth runs open language models on this computer. What you write stays here: nothing is sent anywhere, and it works offline.</source>
        <translation>Hearth 在这台电脑上运行开放的语言模型。你写的内容只留在这里：不会发送到任何地方，并且可以离线使用。</translation>
    </message>
    <message>
        <source>Finding the models that suit this computer…</source>
        <translation>正在寻找适合这台电脑的模型…</translation>
    </message>
    <message>
        <source>More models…</source>
        <translation>更多模型…</translation>
    </message>
    <message>
        <source>You are chatting with the starter, a tiny demo model (135 million parameters): it answers at once, but often wrongly. For useful answers, download one of these models, chosen for this computer:</source>
        <translation>你正在使用入门模型，这是一个很小的演示模型（1.35 亿参数）：回答很快，但经常出错。想要有用的回答，请下载以下为这台电脑挑选的模型之一：</translation>
    </message>
    <message>
        <source>Type a message below to chat with {0}, or try a model recommended for this computer:</source>
        <translation>在下方输入消息与 {0} 聊天，或试试为这台电脑推荐的模型：</translation>
    </message>
    <message>
        <source>Download a model to start; these suit this computer:</source>
        <translation>下载一个模型即可开始；以下模型适合这台电脑：</translation>
    </message>
</context>
<context>
    <name>WindowMenus</name>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;New chat</source>
        <translation>新对话(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Open model file…</source>
        <translation>打开模型文件(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Export conversation…</source>
        <translation>导出对话(&amp;E)…</translation>
    </message>
    <message>
        <source>&amp;Import conversation…</source>
        <translation>导入对话(&amp;I)…</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <source>Add server &amp;endpoint…</source>
        <translation>添加服务器端点(&amp;E)…</translation>
    </message>
    <message>
        <source>Hugging Face &amp;token…</source>
        <translation>Hugging Face 令牌(&amp;T)…</translation>
    </message>
    <message>
        <source>ModelScope t&amp;oken…</source>
        <translation>ModelScope 令牌(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Chat</source>
        <translation>聊天(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Models</source>
        <translation>模型(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;System check</source>
        <translation>系统检查(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Documents</source>
        <translation>文档(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Stop reply</source>
        <translation>停止回复(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Regenerate reply</source>
        <translation>重新生成回复(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Continue reply</source>
        <translation>继续回复(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Focus message box</source>
        <translation>聚焦消息框(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Search conversations</source>
        <translation>搜索对话(&amp;S)</translation>
    </message>
    <message>
        <source>API ser&amp;ver…</source>
        <translation>API 服务器(&amp;V)…</translation>
    </message>
    <message>
        <source>Serve the &amp;API on {0}:{1}</source>
        <translation>在 {0}:{1} 提供 API(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Loaded models…</source>
        <translation>已加载的模型(&amp;L)…</translation>
    </message>
    <message>
        <source>&amp;Instructions…</source>
        <translation>指令(&amp;I)…</translation>
    </message>
    <message>
        <source>&amp;Tool servers…</source>
        <translation>工具服务器(&amp;T)…</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About Hearth</source>
        <translation>关于 Hearth(&amp;A)</translation>
    </message>
</context>
<context>
    <name>_Chip</name>
    <message>
        <source>Remove {0}</source>
        <translation>移除 {0}</translation>
    </message>
    <message>
        <source>{0} · reading…</source>
        <translation>{0} · 正在读取…</translation>
    </message>
    <message>
        <source>{0} · {1:,} tokens</source>
        <translation>{0} · {1:,} 个词元</translation>
    </message>
</context>
<context>
    <name>_Thumb</name>
    <message>
        <source>Picture {0}</source>
        <translation>图片 {0}</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Remove the picture {0}</source>
        <translation>移除图片 {0}</translation>
    </message>
</context>
</TS>
