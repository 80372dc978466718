/** Doctor check: the configuration (operator.json and the environment), as `operator config check` reads it. */
import { ConfigurationError } from '../../core/errors.ts';
import { loadConfig, type LoadedConfig } from '../../gateway/config/index.ts';
import type { CheckResult } from './check.ts';

/** The check's line, and the configuration when it is valid (the later checks read it). */
export function checkConfiguration(env: NodeJS.ProcessEnv): { result: CheckResult; loaded?: LoadedConfig } {
  const name = 'Configuration';
  try {
    const loaded = loadConfig(env);
    const from = loaded.fileFound ? loaded.file : `no ${loaded.file}, defaults`;
    const overrides = loaded.environment.length > 0 ? ` with ${loaded.environment.join(', ')} from the environment` : '';
    return { result: { level: 'OK', name, detail: `valid (${from}${overrides})` }, loaded };
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    // The message names the file, each setting and the reason, over several lines: one line here.
    const [heading = '', ...problems] = error.message.split('\n').map((line) => line.trim()).filter(Boolean);
    const detail = problems.length > 0 ? `${heading} ${problems.join('; ')}` : heading;
    return { result: { level: 'FAIL', name, detail, fix: 'fix the file (operator config check shows the same), or run operator config schema for the settings' } };
  }
}
