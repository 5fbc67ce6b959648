/**
 * The environment a spawned server gets by default: enough to find programs and a home directory, never the
 * parent's secrets (API keys, tokens). Configured variables are added on top.
 */
const POSIX_INHERITED = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];
const WINDOWS_INHERITED = [
  'APPDATA',
  'HOMEDRIVE',
  'HOMEPATH',
  'LOCALAPPDATA',
  'PATH',
  'PROCESSOR_ARCHITECTURE',
  'PROGRAMFILES',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'USERNAME',
  'USERPROFILE',
];

export const DEFAULT_INHERITED_ENV_VARS: readonly string[] =
  process.platform === 'win32' ? WINDOWS_INHERITED : POSIX_INHERITED;

export function defaultEnvironment(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of DEFAULT_INHERITED_ENV_VARS) {
    const value = source[key];
    // Skip exported shell functions ("() { ...") which some shells place in the environment.
    if (value === undefined || value.startsWith('()')) continue;
    env[key] = value;
  }
  return env;
}
