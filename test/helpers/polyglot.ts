/**
 * A small multi-language project for the code tools, written fresh into a
 * temporary folder: one file per supported language, a .gitignore with
 * ignored files, secrets, a binary file, a JSON file, an oversized file, and
 * generated files big enough to overflow the exploring caps.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir } from "./harness.js";

const FILES: Record<string, string> = {
  "src/app.ts": `export interface Config {
  root: string;
  depth: number;
}

export class Server {
  private port = 8080;
  constructor(readonly config: Config) {}
  start(): void {
    handleRequest("start");
  }
  stop() {
    // handleRequest is not called here
  }
}

export function handleRequest(name: string): string {
  return "handleRequest " + name;
}

export const makeServer = (config: Config) => new Server(config);
`,
  "src/view.tsx": `import { handleRequest } from "./app";

export function Button() {
  return <button onClick={() => handleRequest("click")}>Click</button>;
}
`,
  "lib/util.js": `function formatDate(d) {
  return d.toISOString();
}

class Cache {
  get(key) {
    return this[key];
  }
  set(key, value) {
    this[key] = value;
  }
}

module.exports = { formatDate, Cache };
`,
  "py/service.py": `MAX_USERS = 10


class UserService:
    """Calls handle_request for each user."""

    def get_user(self, user_id):
        return handle_request(user_id)


def handle_request(user_id):
    # handle_request in a comment
    return user_id
`,
  "go/server.go": `package main

type Server struct {
	port int
}

type Handler interface {
	Serve()
}

func NewServer() *Server {
	return &Server{port: 80}
}

func (s *Server) HandleRequest() {}
`,
  "rust/lib.rs": `pub struct Point {
    x: i32,
}

pub trait Shape {
    fn area(&self) -> f64;
}

impl Point {
    pub fn new() -> Self {
        Point { x: 0 }
    }
    pub fn distance(&self) -> i32 {
        self.x
    }
}

pub fn handle_request() {}
`,
  "java/App.java": `public class App {
    private int count;

    public App() {}

    public void handleRequest() {}

    static class Inner {
        void run() {}
    }
}
`,
  "data/config.json": JSON.stringify({ name: "demo", scripts: { build: "tsc", test: "vitest" }, items: [1, 2, 3] }, null, 2),
  "docs/notes.md": "# Notes\nTODO: write the docs\nFIXME: later\n",
  ".gitignore": "ignored/\n*.log\n",
  "ignored/skip.ts": "export function shouldNotAppear() {}\n",
  "debug.log": "handleRequest in a log\n",
  ".env": "SECRET_TOKEN=hunter2\n",
  ".git/config": "[core]\n\tbare = false\n",
  ".env.example": "SECRET_TOKEN=\n",
  "keys/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\nnot really\n",
};

export interface Polyglot {
  root: string;
  /** A folder outside the root, the target of the escaping symlink. */
  outside: string;
}

/** Writes the project; `widgets` functions named widget0… are split 40/20 over a .ts and a .py file. */
export function writePolyglot(): Polyglot {
  const root = tempDir("metatools-polyglot-");
  const outside = tempDir("metatools-outside-");
  writeFileSync(join(outside, "secret.txt"), "outside the root\n");
  const files: Record<string, string> = {
    ...FILES,
    "generated/widgets.ts": Array.from({ length: 40 }, (_, i) => `export function widget${i}() {\n  return ${i};\n}\n`).join(""),
    "generated/widgets.py": Array.from({ length: 20 }, (_, i) => `def widget${40 + i}():\n    return ${i}\n`).join(""),
    "generated/matches.txt": Array.from({ length: 250 }, (_, i) => `needle ${i}`).join("\n"),
    "generated/huge.txt": Array.from({ length: 5000 }, (_, i) => `row ${i} ${"x".repeat(20)}`).join("\n"),
    "generated/long.ts": Array.from({ length: 900 }, (_, i) => `export const value${i} = "${"v".repeat(20)}";`).join("\n"),
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  writeFileSync(join(root, "assets.bin"), Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0, 1, 2, 3]));
  symlinkSync(outside, join(root, "escape"));
  symlinkSync(join(root, "src", "app.ts"), join(root, "app-link.ts"));
  return { root, outside };
}
