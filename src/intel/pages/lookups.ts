/** What the pages read: the feed query's sources plus lookups beyond it. */
import type { NewswireDeps } from '../newswire.js';
import type { ContentStore } from '../store/contract.js';
import type { EvidenceDetail, NewsroomState, NewswireItem } from '../types.js';

export interface PageDeps extends NewswireDeps {
  lookups: PageLookups;
  /** Whether this app serves /favicon.svg (the discovery module does); pages link it only then. */
  icon: () => boolean;
}

/** Published or retracted items by id or slug, and the corrections on both ends of one (held items are never shown). */
export class PageLookups {
  constructor(private readonly store: ContentStore) {}

  async item(eventId: string): Promise<{ state: NewsroomState; item: NewswireItem; evidence: EvidenceDetail[] } | undefined> {
    const found = await this.store.getItem(eventId);
    if (!found || found.state === 'HELD') return undefined;
    return { state: found.state, item: found.stored.item, evidence: found.stored.evidence };
  }

  async bySlug(slug: string) {
    const id = await this.store.eventIdBySlug(slug);
    return id ? this.item(id) : undefined;
  }

  /** The items on both ends of an item's corrections, as link targets. */
  async correctionLinks(item: NewswireItem): Promise<{ corrects: NewswireItem | undefined; correctedBy: NewswireItem[] }> {
    const ids = await this.store.correctionsOf(item.eventId);
    const [corrects, ...by] = await Promise.all([item.correctionOf ? this.item(item.correctionOf) : undefined, ...ids.map((id) => this.item(id))]);
    return { corrects: corrects?.item, correctedBy: by.flatMap((f) => (f ? [f.item] : [])) };
  }
}
