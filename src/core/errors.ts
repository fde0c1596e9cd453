/** Base of every error propbot throws on purpose. `code` is machine-readable; never match on `message`. */
export class PropbotError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A value that should have been an fp9 string was not one. `field` is the path of the value. */
export class Fp9FormatError extends PropbotError {
  readonly field: string;
  readonly received: string;
  constructor(field: string, received: unknown, why: string) {
    const shown = describeValue(received);
    super('fp9_format', `${field}: expected an fp9 string (integer × 10^9 as a JSON string), got ${shown}: ${why}`);
    this.field = field;
    this.received = shown;
  }
}

/** A decimal had more than 9 decimal places and the caller asked for exact encoding. */
export class Fp9PrecisionError extends PropbotError {
  readonly field: string;
  constructor(field: string, value: string) {
    super('fp9_precision', `${field}: ${value} has more than 9 decimal places; choose a rounding rule for this use`);
    this.field = field;
  }
}

/** Invalid configuration; `path` is the dotted key, `line` the 1-based line in the file when known. */
export class ConfigError extends PropbotError {
  readonly path: string;
  readonly line: number | undefined;
  readonly file: string | undefined;
  /** What is wrong, without the place (to say it again with a file and line found later). */
  readonly reason: string;
  constructor(path: string, message: string, where: { line?: number; file?: string; cause?: unknown } = {}) {
    const at = [where.file, where.line !== undefined ? `line ${where.line}` : undefined].filter(Boolean).join(':');
    super('config_invalid', `${at ? at + ': ' : ''}${path || '(root)'}: ${message}`, where.cause === undefined ? undefined : { cause: where.cause });
    this.path = path;
    this.line = where.line;
    this.file = where.file;
    this.reason = message;
  }
}

export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? value.slice(0, 60) + '…' : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return `${typeof value} ${String(value)}`;
  if (Array.isArray(value)) return `array(${value.length})`;
  return typeof value;
}
