import type { LogEntry } from "../logging/log-entry.ts";
import type { BatchObserver } from "../logging/log-sink.ts";
import type { RecordFigures } from "../logging/record-figures.ts";

/** Something fed one finished request at a time, from its log entry and the built record's figures. */
export interface RequestObserver {
  /** Cheap and synchronous; never throws. `figures` is null when the record was lost. */
  observe(entry: LogEntry, figures: RecordFigures | null): void;
  /** Sends what is still buffered; resolves when done or given up. Never rejects. */
  shutdown(): Promise<void>;
}

/** The log writer's batch observer feeding every observer each entry; undefined when there are none. */
export function batchObserver(observers: readonly RequestObserver[]): BatchObserver | undefined {
  if (observers.length === 0) return undefined;
  return (entries, figures) => {
    for (const [index, entry] of entries.entries()) {
      const built = figures?.[index] ?? null;
      for (const observer of observers) observer.observe(entry, built);
    }
  };
}
