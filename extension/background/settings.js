// The settings: what each is, its default, what a valid value is, and the
// copy read from chrome.storage.local. Every check of a setting is here.
const SETTINGS_KEY = 'settings';
// How long a tool may take, and how large its result may be (docs/agents.md,
// "Arguments and limits").
const DEFAULT_SETTINGS = { callTimeoutMs: 60_000, resultCapBytes: 1024 * 1024 };

// Each setting is a whole number of at least 1.
const isSetting = (value) => Number.isSafeInteger(value) && value >= 1;

function describeValue(value) {
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'bigint') return `the BigInt ${value}n`;
  return typeof value === 'object' && value !== null ? 'an object' : String(value);
}

// The settings, read once per worker start and again when they change;
// `current` holds them once read, so that a call need not wait for them.
let settingsRead = null;
let current = null;
export function settings() {
  if (!settingsRead) {
    const reading = chrome.storage.local.get(SETTINGS_KEY).then(({ [SETTINGS_KEY]: stored }) => {
      // A stored value that is not a setting (written by hand) gives the default.
      const read = { ...DEFAULT_SETTINGS };
      for (const key of Object.keys(read)) if (isSetting(stored?.[key])) read[key] = stored[key];
      if (settingsRead === reading) current = read; // Unless they changed meanwhile.
      return read;
    });
    settingsRead = reading;
  }
  return settingsRead;
}

// The settings if they are read already, or null.
export const settingsNow = () => current;

function forgetSettings() {
  settingsRead = null;
  current = null;
}

// chrome.storage.onChanged: the settings page (or a test) changed them.
export function onStorageChanged(changes, area) {
  if (area === 'local' && SETTINGS_KEY in changes) forgetSettings();
}

// Settings: {callTimeoutMs, resultCapBytes}, each a whole number of at least
// 1. Bad settings are refused with the reason, and change nothing.
export async function configure(changes) {
  if (changes === null || typeof changes !== 'object' || Array.isArray(changes)) {
    throw new Error('settings: give an object, as {callTimeoutMs, resultCapBytes}');
  }
  for (const [key, value] of Object.entries(changes)) {
    if (!(key in DEFAULT_SETTINGS)) {
      throw new Error(`settings: there is no setting ${key} (there are ${Object.keys(DEFAULT_SETTINGS).join(', ')})`);
    }
    if (!isSetting(value)) throw new Error(`settings: ${key} must be a whole number of at least 1, not ${describeValue(value)}`);
  }
  const now = await settings();
  await chrome.storage.local.set({ [SETTINGS_KEY]: { ...now, ...changes } });
  forgetSettings();
}
