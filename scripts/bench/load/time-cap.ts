// A start that never finishes is a hang, not a slow machine: it is cut off with the run's time cap.

export async function withCap<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not finish within the time cap`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
