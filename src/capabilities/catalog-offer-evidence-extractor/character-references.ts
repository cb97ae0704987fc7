/**
 * HTML character references, decoded by the maintained `entities` package with
 * the HTML standard's full table and its rules: legacy names without `;`
 * (`&copy`, `&frac12`) count in text but not in an attribute value when the
 * next character is `=` or alphanumeric; numeric references map C1 controls
 * through Windows-1252, and 0, surrogates and out-of-range values become
 * U+FFFD. The scanner stays our own; only the table and these rules are theirs.
 */
import { decodeHTML, decodeHTMLAttribute } from 'entities';

/** References in text (a script whose JSON was written entity-encoded). */
export function decodeTextReferences(text: string): string {
  return text.indexOf('&') === -1 ? text : decodeHTML(text);
}

/** References in an attribute value (the attribute-value states of the tokenizer). */
export function decodeAttributeReferences(value: string): string {
  return value.indexOf('&') === -1 ? value : decodeHTMLAttribute(value);
}
