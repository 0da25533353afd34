// The same tool name on two sites of one tab: this page, and a frame from
// other.localhost. The console must name the site in each call.
document.modelContext.registerTool({
  name: 'whoami',
  description: 'Say which site answers.',
  inputSchema: { type: 'object', properties: {} },
  annotations: { readOnlyHint: true, openWorldHint: false },
  execute: () => `answered by ${location.host}`,
});

if (window === window.top) {
  const frame = document.createElement('iframe');
  frame.allow = 'tools'; // a cross-origin frame's WebMCP, where the browser polices it (156)
  frame.title = 'The other site';
  frame.src = `${location.protocol}//other.localhost:${location.port}/twins.html`;
  document.body.append(frame);
}
