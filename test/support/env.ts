/**
 * External services for the suites that need them. When the variable is unset the suite says
 * it was skipped; under CI (`CI=true`) a missing variable is a failure, never a silent skip.
 */
export function externalService(variable: 'SVC_TEST_POSTGRES_URL' | 'SVC_TEST_REDIS_URL'): string | undefined {
  const value = process.env[variable]?.trim();
  if (value) return value;
  if (process.env.CI === 'true')
    throw new Error(`${variable} must be set when CI=true: the suite that needs it would be skipped`);
  return undefined;
}
