import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RequestHandler } from 'express';

interface Asset {
  type: string;
  body: Buffer;
}

/**
 * The dashboard's stylesheet and script, and Chart.js's own UMD build from its npm package: read
 * once at start, served from memory, nothing from a CDN and nothing to build.
 */
export function dashboardAssets(): RequestHandler {
  const here = dirname(fileURLToPath(import.meta.url));
  const chartJs = join(dirname(createRequire(import.meta.url).resolve('chart.js')), 'chart.umd.min.js');
  const assets = new Map<string, Asset>([
    ['dashboard.css', { type: 'text/css; charset=utf-8', body: readFileSync(join(here, 'assets', 'dashboard.css')) }],
    ['dashboard.js', { type: 'text/javascript; charset=utf-8', body: readFileSync(join(here, 'assets', 'dashboard.js')) }],
    ['chart.umd.min.js', { type: 'text/javascript; charset=utf-8', body: readFileSync(chartJs) }],
  ]);
  return (req, res, next) => {
    const asset = assets.get(req.params.name as string);
    if (!asset) return next();
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    res.type(asset.type).send(asset.body);
  };
}
