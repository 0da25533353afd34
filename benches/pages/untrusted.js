// Two Read only tools for figure 14 (benches/untrusted.mjs):
//   noop       trivial execute, as figure 4's
//   read_mail  returns 100 KB of honest mail: an array of {from, subject, body},
//              ordinary words (some of them words of the phrases Toolgate looks
//              for, never a whole phrase), accents, typographic apostrophes and
//              line breaks; nothing addressed to the agent's model, nothing hidden.
//              Made once, at load, the same every time (a fixed seed).
const WORDS = [
  'the', 'a', 'and', 'of', 'to', 'in', 'is', 'it', 'for', 'on', 'with', 'was', 'we', 'they',
  'order', 'kettle', 'delivery', 'Friday', 'lunch', 'meeting', 'café', 'naïve', 'it’s',
  'don’t', 'ignore', 'previous', 'system', 'must', 'call', 'tell', 'users', 'important',
  'instruction', 'thanks!', 'Best,', 'Zoë', 'price', '42', 'déjà', 'vu',
];

function honestMail(bytes) {
  let seed = 0x5eed0038;
  const next = () => {
    seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
    return seed >>> 0;
  };
  const word = () => WORDS[next() % WORDS.length];
  const messages = [];
  let size = 2;
  while (size < bytes) {
    const words = [];
    for (let i = 40 + (next() % 160); i > 0; i--) words.push(word());
    const body = words.map((w, i) => (i > 0 && next() % 100 < 3 ? `\n${w}` : w)).join(' ');
    const message = { from: `person${next() % 1000}@mail.example`, subject: `Re: ${word()} ${word()}`, body };
    size += JSON.stringify(message).length + 1;
    messages.push(message);
  }
  return messages;
}

const MAIL = honestMail(100_000);
window.mailBytes = JSON.stringify(MAIL).length;

const readOnly = { readOnlyHint: true, openWorldHint: false };
const schema = { type: 'object', properties: {} };
document.modelContext.registerTool({
  name: 'noop', description: 'Benchmark tool noop.', inputSchema: schema, annotations: readOnly, execute: () => 'ok',
});
document.modelContext.registerTool({
  name: 'read_mail', description: 'Reads 100 KB of honest mail.', inputSchema: schema, annotations: readOnly, execute: () => MAIL,
});
