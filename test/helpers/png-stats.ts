import { PNG } from 'pngjs';

export interface PngStats {
  width: number;
  height: number;
  /** Distinct colours among the sampled pixels. */
  colours: number;
  /** Share of sampled pixels that differ from the most common colour (the background). */
  inked: number;
}

/**
 * What a screenshot shows, roughly: its size, how many colours, and how much of it is not
 * background. A blank or broken render is one colour, or almost all background.
 */
export function pngStats(png: Buffer, samples = 20_000): PngStats {
  const image = PNG.sync.read(png);
  const count = new Map<number, number>();
  const pixels = image.width * image.height;
  const step = Math.max(1, Math.floor(pixels / samples));
  let seen = 0;
  for (let i = 0; i < pixels; i += step) {
    const o = i * 4;
    const rgb = (image.data[o] << 16) | (image.data[o + 1] << 8) | image.data[o + 2];
    count.set(rgb, (count.get(rgb) ?? 0) + 1);
    seen++;
  }
  const background = Math.max(...count.values());
  return { width: image.width, height: image.height, colours: count.size, inked: (seen - background) / seen };
}
