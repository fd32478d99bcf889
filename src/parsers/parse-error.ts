/**
 * Parsers throw this on output they cannot read; the fact becomes `unknown` with the message.
 * It lives with the parsers so they depend on nothing above them; the engine turns it into a
 * fact failure of kind parse-failed.
 */
export class ParseError extends Error {
  readonly kind = 'parse-failed' as const;
  constructor(message: string) {
    super(message);
    this.name = 'ParseError';
  }
}
