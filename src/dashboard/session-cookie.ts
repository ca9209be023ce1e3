import type { Request, Response } from 'express';
import { cameOverHttps } from '../http/request-scheme.js';

export const SESSION_COOKIE = 'scrapegate_session';
const COOKIE_PATH = '/dashboard';

/** The session id the request carries, if any (the last of several cookies of that name wins nothing: any duplicate is refused). */
export function sessionIdOf(req: Request): string | undefined {
  const values: string[] = [];
  for (const pair of (req.get('cookie') ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === SESSION_COOKIE) values.push(pair.slice(eq + 1).trim());
  }
  return values.length === 1 ? values[0] : undefined;
}

function cookie(req: Request, value: string, maxAgeSeconds: number): string {
  const secure = cameOverHttps(req) ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value}; Path=${COOKIE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure}`;
}

/** Only the dashboard's paths get it, never scripts (HttpOnly), never another site's requests (SameSite=Strict). */
export function setSessionCookie(req: Request, res: Response, id: string, ttlMs: number): void {
  res.append('Set-Cookie', cookie(req, id, Math.floor(ttlMs / 1000)));
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.append('Set-Cookie', cookie(req, '', 0));
}
