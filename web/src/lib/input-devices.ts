/** Where the studio's audio comes from, and what the browser remembers about the last choice. */
export type AudioSource = 'display' | 'microphone';

export interface InputDevice {
  deviceId: string;
  label: string;
}

const SOURCE_KEY = 'rb:studio:source';
const DEVICE_KEY = 'rb:studio:device';

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // Private mode: the choice lasts for this page only.
  }
}

/** Whether this browser can be asked for tab/screen audio at all. */
export function canCaptureDisplay(): boolean {
  return typeof navigator !== 'undefined' && !!navigator.mediaDevices?.getDisplayMedia;
}

export function rememberedSource(): AudioSource {
  const saved = read(SOURCE_KEY);
  if (saved === 'microphone' || (saved === 'display' && canCaptureDisplay())) return saved;
  return canCaptureDisplay() ? 'display' : 'microphone';
}

export function rememberSource(source: AudioSource): void {
  write(SOURCE_KEY, source);
}

/** The input chosen last time ('' = the system default). */
export function rememberedDevice(): string {
  return read(DEVICE_KEY) ?? '';
}

export function rememberDevice(deviceId: string): void {
  write(DEVICE_KEY, deviceId || null);
}

/**
 * The audio inputs (microphones, interfaces, mixers). Browsers only name them once the site may use
 * the microphone; until then `labelled` is false and the names are generic.
 */
export async function listInputs(): Promise<{ devices: InputDevice[]; labelled: boolean }> {
  if (!navigator.mediaDevices?.enumerateDevices) return { devices: [], labelled: false };
  const all = await navigator.mediaDevices.enumerateDevices();
  const inputs = all.filter((d) => d.kind === 'audioinput' && d.deviceId !== 'communications');
  const labelled = inputs.some((d) => d.label);
  return {
    labelled,
    devices: inputs
      .filter((d) => d.deviceId && d.deviceId !== 'default')
      .map((d, i) => ({ deviceId: d.deviceId, label: d.label || `Audio input ${i + 1}` })),
  };
}
