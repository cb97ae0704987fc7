/**
 * Host-name rules (RFC 1035 §2.3.1 and RFC 1123 §2.1): a label is 1–63
 * letters, digits or hyphens, neither starting nor ending with a hyphen (a
 * leading digit is allowed); a name is at most 253 characters without its
 * optional trailing root dot.
 */

const MAX_DNS_LABEL = 63;
const MAX_DNS_NAME = 253;

const LDH_LABEL_RE = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;

/** Why `label` is not a host-name label, or undefined when it is one. */
export function dnsLabelProblem(label: string): string | undefined {
  if (label === '') return 'has an empty label (two dots in a row, or a leading dot)';
  const shown = JSON.stringify(label.length > 70 ? label.slice(0, 70) + '…' : label);
  if (label.length > MAX_DNS_LABEL) return `has a label longer than ${MAX_DNS_LABEL} characters (${label.length}): ${shown}`;
  if (LDH_LABEL_RE.test(label)) return undefined;
  // eslint-disable-next-line no-control-regex
  if (/[^\u0000-\u007f]/.test(label)) {
    return `has a label with non-ASCII characters ${shown}; an internationalized name must be written in its ASCII form (xn--…)`;
  }
  if (/[^A-Za-z0-9-]/.test(label)) return `has a label with characters other than letters, digits and hyphens: ${shown}`;
  return `has a label that ${label.startsWith('-') ? 'starts' : 'ends'} with a hyphen: ${shown}`;
}

/**
 * Why `name` is not a host name, or undefined. One trailing dot (the root) is
 * allowed; `minLabels` asks for at least that many labels.
 */
export function dnsNameProblem(name: string, minLabels = 1): string | undefined {
  const bare = name.endsWith('.') ? name.slice(0, -1) : name;
  if (bare.length > MAX_DNS_NAME) return `is longer than ${MAX_DNS_NAME} characters (${bare.length})`;
  const labels = bare.split('.');
  for (const label of labels) {
    const problem = dnsLabelProblem(label);
    if (problem !== undefined) return problem;
  }
  if (labels.length < minLabels) return `has ${labels.length} label(s); at least ${minLabels} are needed`;
  return undefined;
}
