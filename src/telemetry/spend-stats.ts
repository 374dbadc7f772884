/** What the spend metrics read: where counters live now, and how this replica metered alone. */
export interface SpendFallbackStats {
  readonly shared: boolean;
  /** Requests metered by this replica alone whose counters started from the last shared values it saw. */
  readonly localFromLastShared: number;
  /** Requests metered alone for keys this replica had never seen shared values of (they started from what it counted itself). */
  readonly localFromOwnCounts: number;
  /** Times this replica seeded an emptied Redis from the store. */
  readonly reseeds: number;
}
