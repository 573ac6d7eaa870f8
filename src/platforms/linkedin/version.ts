// The LinkedIn API version Herald speaks when HERALD_LINKEDIN_VERSION is not set. LinkedIn releases a version
// each month and retires it about a year later (then every /rest call answers 426 NONEXISTENT_VERSION and
// targets fail with PLATFORM_API_VERSION_RETIRED): set the variable to a newer YYYYMM without waiting for a release.
export const LINKEDIN_DEFAULT_VERSION = '202610';
