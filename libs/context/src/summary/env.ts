/**
 * The summary rung's connection settings as the app reads them from its environment. Pure: the
 * caller passes the environment (`process.env`). The window and answer sizes are the app's to
 * choose per model; these are only where to send and as whom.
 */
import { SUMMARY_PROVIDER_NAMES, type SummaryProviderName } from './wire';

export const SUMMARY_ENV = {
  provider: 'ARBOR_SUMMARY_PROVIDER',
  baseUrl: 'ARBOR_SUMMARY_BASE_URL',
  apiKey: 'ARBOR_SUMMARY_API_KEY',
  model: 'ARBOR_SUMMARY_MODEL',
} as const;

export interface SummaryEnvConfig {
  provider: SummaryProviderName;
  baseUrl?: string;
  apiKey?: string;
  model?: string;
}

const isProvider = (value: string): value is SummaryProviderName =>
  (SUMMARY_PROVIDER_NAMES as readonly string[]).includes(value);

function read(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/**
 * `{provider, baseUrl?, apiKey?, model?}` from `ARBOR_SUMMARY_*`. The provider defaults to
 * `anthropic`; an unknown provider name is an error (a typo must not silently disable the rung).
 */
export function summaryConfigFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): SummaryEnvConfig {
  const provider = read(env, SUMMARY_ENV.provider) ?? 'anthropic';
  if (!isProvider(provider)) {
    throw new RangeError(
      `${SUMMARY_ENV.provider} must be one of ${SUMMARY_PROVIDER_NAMES.join(', ')}, got "${provider}"`,
    );
  }
  const baseUrl = read(env, SUMMARY_ENV.baseUrl);
  const apiKey = read(env, SUMMARY_ENV.apiKey);
  const model = read(env, SUMMARY_ENV.model);
  return {
    provider,
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(model !== undefined ? { model } : {}),
  };
}
