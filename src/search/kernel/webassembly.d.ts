/**
 * The part of the WebAssembly JavaScript API the vector kernel uses: Node
 * has it all, but TypeScript's ES library does not declare it (it comes with
 * the DOM library, which a server does not load).
 */
declare namespace WebAssembly {
  class Module {
    constructor(bytes: ArrayBufferView | ArrayBuffer);
  }
  class Instance {
    constructor(module: Module, imports?: Record<string, unknown>);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number; shared?: boolean });
    readonly buffer: ArrayBuffer | SharedArrayBuffer;
    grow(pages: number): number;
  }
  function validate(bytes: ArrayBufferView | ArrayBuffer): boolean;
}
