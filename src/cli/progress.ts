/**
 * Progress of long work (the bench takes tens of seconds) on stderr: on a terminal one line
 * that updates in place with the step and its elapsed time; when piped, one plain line per step.
 */
export interface Progress {
  step(text: string): void;
  done(): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export function createProgress(prefix: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) {
    return {
      step: (text) => stream.write(`${prefix}: ${text}\n`),
      done: () => undefined,
    };
  }
  let current = '';
  let started = Date.now();
  let frame = 0;
  const draw = () => {
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    stream.write(`\r\u001b[K${FRAMES[frame++ % FRAMES.length]} ${prefix}: ${current} (${seconds} s)`);
  };
  const timer = setInterval(draw, 250);
  timer.unref();
  return {
    step(text) {
      if (current) stream.write(`\r\u001b[K✓ ${prefix}: ${current}\n`);
      current = text;
      started = Date.now();
      draw();
    },
    done() {
      clearInterval(timer);
      if (current) stream.write(`\r\u001b[K✓ ${prefix}: ${current}\n`);
      current = '';
    },
  };
}
