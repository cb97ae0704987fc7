/**
 * What the service calls itself and the icon it shows, stated once: the agent
 * card's name, the title of llms.txt and of the pages, and the Bazaar service
 * metadata of every paid 402 (`resource.serviceName`, `resource.iconUrl`) all
 * come from here, so no discovery surface names the service differently.
 */

/**
 * The service's name. Bazaar keeps a `serviceName` only when it is printable
 * ASCII of at most 32 characters (the SDK's `isValidServiceName`); a longer
 * one would be dropped from the catalog, silently.
 */
export const SERVICE_NAME = 'Agent pay-per-call utilities';

/** Where the discovery module serves the icon, at the service's own origin. */
export const ICON_PATH = '/favicon.svg';
export const ICON_CONTENT_TYPE = 'image/svg+xml';

/** A small coin with a 402 on it: registries and Bazaar listings look for an icon at the origin. */
export const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><circle cx="32" cy="32" r="30" fill="#2775ca"/>' +
  '<text x="32" y="41" font-family="sans-serif" font-size="22" font-weight="700" text-anchor="middle" fill="#fff">402</text></svg>';
