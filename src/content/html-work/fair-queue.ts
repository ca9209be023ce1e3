/** Why an item was not queued: the queue is full in all, or for its key. */
export type QueueRefusal = 'all' | 'key';

export interface FairQueueLimits {
  /** Items waiting, over every key. */
  total: number;
  /** Items waiting of one key. */
  perKey: number;
}

/** Keys remembered with their turns after their lines emptied. */
const REMEMBERED = 1024;

/** A key's waiting items, and its turns taken (virtual time: see FairQueue). */
interface Line<T> {
  items: T[];
  turns: number;
}

/**
 * A bounded queue served in turns across keys: `take` gives the oldest item of the key that has
 * had the fewest turns (ties: the one waiting longest). A key that starts queueing is given the
 * turns of the last key served before it, not none: it goes before the keys served since, but
 * cannot claim a run of turns for the time it was away. However many items one key queues, every
 * other key with work waiting is served before that key's next one.
 */
export class FairQueue<T> {
  /** Each key with items waiting; a key served goes to the back (the order breaks ties). */
  private readonly lines = new Map<string, Line<T>>();
  private count = 0;
  /** The turns the last key served had before it was served: no key waiting has fewer. */
  private clock = 0;
  /**
   * Keys whose line emptied with more turns than the clock (served this round): one that queues
   * again keeps them, else a key whose every task is taken at once would never lose its turn.
   * Forgotten once the clock passes them; at most REMEMBERED, the oldest forgotten first.
   */
  private readonly rested = new Map<string, number>();

  constructor(private readonly limits: FairQueueLimits) {}

  get size(): number {
    return this.count;
  }

  waitingOf(key: string): number {
    return this.lines.get(key)?.items.length ?? 0;
  }

  /** Queues `item` behind its key's others, or says why it cannot. */
  push(key: string, item: T): QueueRefusal | undefined {
    const line = this.lines.get(key);
    if ((line?.items.length ?? 0) >= this.limits.perKey) return 'key';
    if (this.count >= this.limits.total) return 'all';
    if (line) line.items.push(item);
    else this.lines.set(key, { items: [item], turns: Math.max(this.clock, this.rested.get(key) ?? 0) });
    this.rested.delete(key);
    this.count++;
    return undefined;
  }

  /** The next item: the oldest of the key with the fewest turns. */
  take(): T | undefined {
    let chosen: [string, Line<T>] | undefined;
    for (const entry of this.lines) if (!chosen || entry[1].turns < chosen[1].turns) chosen = entry;
    if (!chosen) return undefined;
    const [key, line] = chosen;
    const item = line.items.shift() as T;
    if (line.turns > this.clock) for (const [k, turns] of this.rested) if (turns <= line.turns) this.rested.delete(k);
    this.clock = line.turns++;
    this.lines.delete(key);
    if (line.items.length > 0) this.lines.set(key, line);
    else this.rest(key, line.turns);
    this.count--;
    return item;
  }

  private rest(key: string, turns: number): void {
    if (this.rested.size >= REMEMBERED) this.rested.delete(this.rested.keys().next().value as string);
    this.rested.set(key, turns);
  }

  /** Takes `item` out wherever it waits (a cancelled task); false when it is no longer queued. */
  remove(key: string, item: T): boolean {
    const line = this.lines.get(key);
    const at = line?.items.indexOf(item) ?? -1;
    if (!line || at < 0) return false;
    line.items.splice(at, 1);
    if (line.items.length === 0) {
      this.lines.delete(key);
      this.rest(key, line.turns);
    }
    this.count--;
    return true;
  }

  /** Empties the queue, giving back everything that waited. */
  drain(): T[] {
    const all = [...this.lines.values()].flatMap((line) => line.items);
    this.lines.clear();
    this.rested.clear();
    this.count = 0;
    return all;
  }
}
