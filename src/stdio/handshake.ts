/**
 * A stdio session's handshake, remembered: the server's answers to the
 * client's `initialize` and first `tools/list` are kept for the next launch
 * (`remember`, src/util/remembered-answer.ts), and those the quick start
 * already sent (src/cli/quick-start.ts) are not sent twice.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/server";

type Id = string | number;

/** What the quick start answered: the requests' ids, and the namespaces its instructions named. */
export interface Answered {
  ids: Id[];
  namespaces?: string;
}

/** What a launch keeps: the initialize result (the version asked for), the tool list, and the namespaces named. */
export interface KeptHandshake {
  requested: string;
  initialize: Record<string, unknown>;
  toolsList?: Record<string, unknown>;
  namespaces: string;
}

/** Messages looked at for the handshake: past these, the session is under way. */
const LOOKED_AT = 8;

export class Handshake {
  private opening: { id: Id; version: string } | undefined;
  private toolsListId: Id | undefined;
  private initialize: Record<string, unknown> | undefined;
  private toolsList: Record<string, unknown> | undefined;
  private readonly unsent: Set<Id>;
  private looked = 0;

  constructor(
    answered: Answered | undefined,
    private readonly remember: ((kept: KeptHandshake) => void) | undefined,
    /** The instructions and namespaces line as they are now: kept with the answer, so the next launch says what this one's end knew. */
    private readonly now: () => { instructions: string; namespaces: string },
  ) {
    this.unsent = new Set(answered?.ids ?? []);
  }

  /** Each message from the client, as it is passed on: the initialize and the first tools/list are noted by id. */
  heard(line: Buffer): void {
    if (this.looked >= LOOKED_AT || (this.opening && this.toolsListId !== undefined)) return;
    this.looked++;
    const message = parse(line);
    const id = message?.id;
    if (typeof id !== "string" && typeof id !== "number") return;
    const version = message?.params?.protocolVersion;
    if (message?.method === "initialize" && !this.opening && typeof version === "string") this.opening = { id, version };
    else if (message?.method === "tools/list" && this.toolsListId === undefined) this.toolsListId = id;
  }

  /** Each message to the client: false when it must not be sent (the quick start answered it already). */
  sending(message: JSONRPCMessage): boolean {
    const id = "id" in message ? message.id : undefined;
    if (id === undefined || !("result" in message || "error" in message)) return true;
    if ("result" in message && this.opening && id === this.opening.id) {
      this.initialize = message.result as Record<string, unknown>;
      this.keep();
    } else if ("result" in message && this.toolsListId !== undefined && id === this.toolsListId) {
      this.toolsList = message.result as Record<string, unknown>;
      this.keep();
    }
    return !this.unsent.delete(id);
  }

  /** Keeps what was answered, with the instructions of now (again at the end of the run: what its snapshot holds then). */
  keep(): void {
    if (!this.remember || !this.opening || !this.initialize) return;
    const { instructions, namespaces } = this.now();
    this.remember({
      requested: this.opening.version,
      initialize: { ...this.initialize, instructions },
      ...(this.toolsList ? { toolsList: this.toolsList } : {}),
      namespaces,
    });
  }
}

function parse(line: Buffer): { id?: unknown; method?: unknown; params?: { protocolVersion?: unknown } } | undefined {
  // Only the requests that matter are parsed: a message naming neither method is skipped unread.
  const text = line.toString("utf8");
  if (!text.includes('"initialize"') && !text.includes('"tools/list"')) return undefined;
  try {
    return JSON.parse(text) as ReturnType<typeof parse>;
  } catch {
    return undefined;
  }
}
