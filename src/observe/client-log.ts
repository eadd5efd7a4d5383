/**
 * Log messages for clients (MCP logging): each backend's messages under its
 * namespace as the logger name (`everything`, or `everything/<its logger>`),
 * and metatools' own warnings and errors as `metatools`. Each session sees
 * the messages at or above the level it set (`logging/setLevel`; until it
 * sets one, warnings and above). Backends are asked to log at the most
 * verbose level any session wants, so they do not flood the pipe for
 * nothing.
 */
import type { LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "../util/log.js";

export const LEVELS: readonly LoggingLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
/** What a session gets before it asks for a level: what needs attention, not chatter. */
export const DEFAULT_CLIENT_LEVEL: LoggingLevel = "warning";

export interface ClientLogMessage {
  level: LoggingLevel;
  logger: string;
  data: unknown;
}

export interface ClientLogSession {
  setLevel(level: LoggingLevel): void;
  close(): void;
}

export class ClientLog {
  private readonly sessions = new Map<object, { level: LoggingLevel; send: (message: ClientLogMessage) => void }>();
  private asked: LoggingLevel | undefined;

  /** `applyLevel`: asks the backends to log at a level (BackendManager.setLogLevel). */
  constructor(private readonly applyLevel: (level: LoggingLevel) => void) {}

  /** `logger`, whose warnings and errors also go to clients as metatools' own log messages. */
  alsoTo(logger: Logger): Logger {
    return {
      ...logger,
      warn: (message) => {
        logger.warn(message);
        this.publish({ level: "warning", logger: "metatools", data: message });
      },
      error: (message) => {
        logger.error(message);
        this.publish({ level: "error", logger: "metatools", data: message });
      },
    };
  }

  /** Sessions receiving messages now. */
  get size(): number {
    return this.sessions.size;
  }

  /** A session that receives messages through `send` (its server's `notifications/message`). */
  open(send: (message: ClientLogMessage) => void): ClientLogSession {
    const key = {};
    this.sessions.set(key, { level: DEFAULT_CLIENT_LEVEL, send });
    this.retune();
    return {
      setLevel: (level) => {
        const session = this.sessions.get(key);
        if (!session) return;
        session.level = level;
        this.retune();
      },
      close: () => {
        this.sessions.delete(key);
        this.retune();
      },
    };
  }

  publish(message: ClientLogMessage): void {
    const severity = LEVELS.indexOf(message.level);
    for (const session of this.sessions.values()) {
      if (severity >= LEVELS.indexOf(session.level)) {
        try {
          session.send(message);
        } catch {
          // A session going away: its close follows.
        }
      }
    }
  }

  /** The most verbose level any session wants, asked of the backends when it changes. */
  private retune(): void {
    if (!this.sessions.size) return;
    const wanted = LEVELS[Math.min(...[...this.sessions.values()].map((s) => LEVELS.indexOf(s.level)))]!;
    if (wanted === this.asked) return;
    this.asked = wanted;
    this.applyLevel(wanted);
  }
}
