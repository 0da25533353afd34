// document.modelContext across the frame tree, and exposedTo (Chromium
// 156's own against Toolgate's): what a parent and a same-origin child see
// of each other's tools, who gets toolchange, executeTool of a tool another
// document registered, and which exposedTo lists registerTool takes.
'use strict';

(() => {
  const { errorOf, tick } = window.diff;
  const tool = (name, execute = () => name) => ({ name, description: `Tool ${name}`, execute });
  const outcome = (promise) => promise.then((value) => ({ value: value === undefined ? '<undefined>' : value }), (error) => ({ error: errorOf(error) }));

  // Waits until `log` has been still for 150 ms (at most 3 s): the browser
  // delivers another document's toolchange when it will, through its own process.
  async function still(log) {
    const end = Date.now() + 3000;
    let seen = -1;
    while (seen !== log.length && Date.now() < end) {
      seen = log.length;
      await tick(150);
    }
  }

  async function tree() {
    const out = {};
    const frame = document.createElement('iframe');
    frame.src = '/child.html';
    await new Promise((done) => { frame.onload = done; document.body.append(frame); });
    const parent = document.modelContext;
    const child = frame.contentDocument.modelContext;
    const log = [];
    for (const [context, who] of [[parent, 'parent'], [child, 'child']]) {
      context.addEventListener('toolchange', () => log.push(`${who}:toolchange`));
      for (const type of ['toolactivated', 'toolcancel']) context.addEventListener(type, (event) => log.push(`${who}:${type}:${event.toolName}`));
    }
    await parent.registerTool(tool('p.tool'));
    await still(log);
    out.afterParentRegisters = log.splice(0);
    await child.registerTool(tool('c.tool', (input) => `child ran with ${JSON.stringify(input)}`));
    await still(log);
    out.afterChildRegisters = log.splice(0);
    const describe = (list) => list.map((entry) => `${entry.name}@${entry.window === window ? 'parent' : entry.window === frame.contentWindow ? 'child' : 'other'}`);
    out.parentSees = describe(await parent.getTools());
    out.childSees = describe(await child.getTools());
    const childTool = (await parent.getTools()).find((entry) => entry.name === 'c.tool');
    out.parentRunsChildTool = await outcome(parent.executeTool(childTool, { x: 1 }));
    await still(log);
    out.runLog = log.splice(0);
    const controller = new AbortController();
    await child.registerTool(tool('c.aborted'), { signal: controller.signal });
    await still(log);
    log.length = 0;
    controller.abort();
    await still(log);
    out.afterChildUnregisters = log.splice(0);
    frame.remove();
    await tick(50);
    out.afterFrameRemoved = describe(await parent.getTools());
    return out;
  }

  async function exposedTo() {
    const context = document.modelContext;
    const cases = {
      empty: [], self: [location.origin], https: ['https://agent.example'], path: ['https://agent.example/a/b?c'],
      localhostPort: ['http://other.localhost:1'], insecure: ['http://agent.example'], star: ['*'], notAUrl: ['not a url'],
      number: [5], string: 'https://agent.example', object: {}, nullValue: null, iterable: new Set(['https://agent.example']),
      throwsOnRead: { get exposedTo() { throw new RangeError('exposedTo getter'); } },
    };
    const out = {};
    let n = 0;
    for (const [id, exposed] of Object.entries(cases)) {
      const options = id === 'throwsOnRead' ? exposed : { exposedTo: exposed };
      const name = `ex.${++n}`;
      out[id] = await outcome(context.registerTool(tool(name), options));
      out[id].listed = (await context.getTools()).some((entry) => entry.name === name);
    }
    // The checks' order: a bad name fails before a bad origin (its message
    // is 148's wording on Toolgate, docs/classes.md).
    out.badNameAndOrigin = (await outcome(context.registerTool(tool(''), { exposedTo: ['*'] }))).error.name;
    return out;
  }

  Object.assign(window.diff.groups, { tree, exposedTo });
})();
