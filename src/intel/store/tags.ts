/**
 * Filterable values of each item version (`newswire_item_tags`), one row
 * each, carrying the version's store time: (tag_kind, tag_value, updated_us)
 * is indexed, so a filtered query walks one value's rows in lastUpdatedAt
 * order. Writers and readers share this vocabulary.
 */
import type { NewswireItem } from '../types.js';

export type TagKind = 'entity' | 'protocol' | 'topic' | 'type' | 'first_party';

/** The tag rows of one item version. */
export function tagsOf(it: NewswireItem): Array<[TagKind, string]> {
  return [
    ...it.entities.map((e): [TagKind, string] => ['entity', e]),
    ...it.protocols.map((p): [TagKind, string] => ['protocol', p]),
    ...it.topics.map((t): [TagKind, string] => ['topic', t]),
    ['type', it.type],
    ['first_party', it.firstPartyInterest ? 'true' : 'false'],
  ];
}

/** "Item `i`'s current version has this tag" (binds kind, value). */
export const TAG_FILTER = (alias: string) =>
  `EXISTS (SELECT 1 FROM newswire_item_tags ${alias} WHERE ${alias}.event_id = i.event_id AND ${alias}.version = i.version AND ${alias}.tag_kind = ? AND ${alias}.tag_value = ?)`;
