/**
 * Limits on the shape of arguments, checked before anything reads them:
 * nesting depth, size, and keys that could reach an object's prototype in
 * code that copies objects with assignment (`__proto__`, and `constructor`
 * or `prototype` holding an object). A breach is a recoverable error that
 * names the path; nothing is partly processed.
 */

export interface ShapeLimits {
  maxDepth: number;
  maxBytes: number;
}

export const DEFAULT_SHAPE_LIMITS: ShapeLimits = { maxDepth: 32, maxBytes: 1 << 20 };

/** The first problem with `value`'s shape, as `{ path, problem }`, or undefined. */
export function shapeProblem(value: unknown, limits: ShapeLimits = DEFAULT_SHAPE_LIMITS): { path: string; problem: string } | undefined {
  let bytes = 0;
  const visit = (v: unknown, path: string, depth: number): { path: string; problem: string } | undefined => {
    if (depth > limits.maxDepth) return { path, problem: `nested deeper than ${limits.maxDepth} levels` };
    if (typeof v === "string") bytes += v.length;
    else bytes += 8;
    if (bytes > limits.maxBytes) return { path, problem: `arguments larger than ${limits.maxBytes} bytes` };
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const found = visit(v[i], `${path}[${i}]`, depth + 1);
        if (found) return found;
      }
    } else if (v !== null && typeof v === "object") {
      // A parser that assigns keys one by one turns `"__proto__": {…}` into this object's prototype rather than a key:
      // its fields would then pass validation by inheritance and vanish when the arguments are sent on.
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto !== Object.prototype && proto !== null)
        return { path, problem: 'a "__proto__" key replaced this object\'s prototype; the key "__proto__" is not accepted' };
      for (const key of Object.keys(v)) {
        const child = (v as Record<string, unknown>)[key];
        if (key === "__proto__" || ((key === "constructor" || key === "prototype") && child !== null && typeof child === "object")) {
          return { path: `${path}.${key}`, problem: `the key "${key}" is not accepted (it can rewrite object prototypes)` };
        }
        bytes += key.length;
        const found = visit(child, `${path}.${key}`, depth + 1);
        if (found) return found;
      }
    }
    return undefined;
  };
  return visit(value, "args", 0);
}
