// One watch stream's view through the fault controls: each event line passes to the client at
// once, later (delayWatchEvents) or not until released (holdWatchEvents), always in the order the
// server sent it; the stream's own end queues behind its events, a cut ends it at once.
import type { MatchedRequest } from "./fault-match.js";

/** Where a gate delivers: the client's response. */
export interface WatchSink {
  write(event: string | Uint8Array): void;
  end(): void;
}

/** What a gate asks of the fault rules (the Faults instance). */
export interface WatchRules {
  watchHeld(r: MatchedRequest): boolean;
  watchDelayFor(r: MatchedRequest): number;
  watchClosed(gate: WatchGate): void;
}

// null marks the stream's end, so it keeps its place behind held and delayed events.
type Item = string | Uint8Array | null;

export class WatchGate {
  private held: Item[] = [];
  private queue: Array<{ due: number; item: Item }> = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    readonly request: MatchedRequest,
    private readonly sink: WatchSink,
    private readonly rules: WatchRules,
    /** Ends the client's stream now (the plane's own close: connection, upstream, timers). */
    private readonly onCut: () => void,
  ) {}

  /** Events waiting for a release. */
  get heldEvents(): number {
    return this.held.filter((i) => i !== null).length;
  }

  /** One event as the server sent it: a JSON line (with its newline) or a protobuf frame. */
  push(event: string | Uint8Array): void {
    this.add(event);
  }

  /** The server ended the stream. */
  end(): void {
    this.add(null);
  }

  /** Ends the stream now, dropping held and delayed events (the client re-watches and the server replays them). */
  cut(): void {
    if (this.closed) return;
    this.dispose();
    this.onCut();
  }

  /** The client went away: forget everything. */
  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    this.held = [];
    this.queue = [];
    this.rules.watchClosed(this);
  }

  /** Re-checks the hold rules: a stream no longer held sends what it held, in order. */
  recheck(): void {
    if (this.closed || this.held.length === 0 || this.rules.watchHeld(this.request)) return;
    const items = this.held;
    this.held = [];
    for (const item of items) this.enqueue(item);
  }

  private add(item: Item): void {
    if (this.closed) return;
    if (this.held.length > 0 || this.rules.watchHeld(this.request)) this.held.push(item);
    else this.enqueue(item);
  }

  private enqueue(item: Item): void {
    const ms = this.rules.watchDelayFor(this.request);
    if (ms <= 0 && this.queue.length === 0) {
      this.deliver(item);
      return;
    }
    this.queue.push({ due: Date.now() + ms, item });
    this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.queue.length === 0 || this.closed) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        // A later event with a shorter delay still waits behind an earlier one: order first.
        while (!this.closed && this.queue.length > 0 && this.queue[0]!.due <= Date.now()) {
          this.deliver(this.queue.shift()!.item);
        }
        this.schedule();
      },
      Math.max(0, this.queue[0]!.due - Date.now()),
    );
  }

  private deliver(item: Item): void {
    if (item !== null) {
      this.sink.write(item);
      return;
    }
    this.dispose();
    this.sink.end();
  }
}
