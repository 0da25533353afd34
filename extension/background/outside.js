// Agents from outside the browser, and from other extensions. Both feed
// `agent` like the console does; see desktop.js and external.js.
import { parseAgentMessage } from '../../pkg/toolgate.js';
import { agent, closeChat, openChat, withdraw } from './agents.js';
import { errorReply, ready } from './core.js';
import { desktopAgents } from './desktop.js';
import { errors } from './errors.js';
import { otherExtensions } from './external.js';

export const desktop = desktopAgents({ ready, parse: parseAgentMessage, agent, openChat, closeChat, withdraw, errorReply, errors });
export const external = otherExtensions({ agent, openChat, closeChat, errorReply, errors });

// What the settings page shows of both.
export async function agentsStatus() {
  return { desktop: desktop.status(), extensions: await external.status() };
}
