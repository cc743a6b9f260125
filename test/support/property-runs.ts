/**
 * Cases per fast-check property: `PROPERTY_RUNS` when set, else 2,000 in CI and 200 locally
 * (`npm run fuzz` goes deeper).
 */
export const PROPERTY_RUNS = Number(process.env.PROPERTY_RUNS ?? (process.env.CI ? 2000 : 200));
