/**
 * Progress on stderr for long work (`index`, `eval`): on a terminal a
 * one-line bar redrawn in place, at most ten times a second; elsewhere
 * (a pipe, CI) one line when each part finishes, so logs stay readable.
 */
import { printable } from "../util/terminal.js";

const BAR = 24;

export class ProgressView {
  private readonly tty: boolean;
  private drawn = false;
  private lastDraw = 0;

  constructor(private readonly out: NodeJS.WriteStream) {
    this.tty = out.isTTY === true;
  }

  /** `label` names the part (a namespace, an eval mode); `finished` is what the non-terminal line says when it is done. */
  update(rawLabel: string, done: number, total: number, rawFinished = `${rawLabel}: ${total} done`): void {
    const [label, finished] = [printable(rawLabel), printable(rawFinished)];
    if (this.tty) {
      const now = performance.now();
      if (done < total && now - this.lastDraw < 100) return;
      this.lastDraw = now;
      const filled = total ? Math.round((done / total) * BAR) : BAR;
      this.out.write(`\r\x1b[2K${label} [${"#".repeat(filled)}${".".repeat(BAR - filled)}] ${done}/${total}`);
      this.drawn = true;
    } else if (done === total) this.out.write(`${finished}\n`);
  }

  /** Clears the bar, so what follows starts on a clean line. */
  finish(): void {
    if (this.drawn) this.out.write("\r\x1b[2K");
    this.drawn = false;
  }
}
