/** The API group and version of Crondeck's custom resources. */
export const CRONDECK_GROUP = 'crondeck.dev';
export const CRONDECK_VERSION = 'v1alpha1';
export const CRONDECK_API_VERSION = `${CRONDECK_GROUP}/${CRONDECK_VERSION}`;
