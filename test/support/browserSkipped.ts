/** Set by globalSetup when the dashboard tests cannot have their browser: the line saying so. */
export const BROWSER_SKIPPED_ENV = 'CRONDECK_BROWSER_SKIPPED';
