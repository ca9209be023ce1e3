import type { AdminHandler } from '../../routing/operations.js';
import type { KeyAdmin } from '../../../accounts/key-admin.js';

/** Keys: the admin API's calls of KeyAdmin, which holds every rule; changes are made as `admin`. */
export function adminKeyHandlers(admin: KeyAdmin): {
  adminListKeys: AdminHandler<'adminListKeys'>;
  adminCreateKey: AdminHandler<'adminCreateKey'>;
  adminGetKey: AdminHandler<'adminGetKey'>;
  adminUpdateKey: AdminHandler<'adminUpdateKey'>;
  adminRotateKey: AdminHandler<'adminRotateKey'>;
  adminRevokeKey: AdminHandler<'adminRevokeKey'>;
} {
  return {
    adminListKeys: async ({ query }, _req, res) => void res.json(await admin.list(query)),
    adminCreateKey: async ({ body }, _req, res) => {
      const { key, record } = await admin.create('admin', body);
      res.status(201).setHeader('Cache-Control', 'no-store');
      res.json({ ...record, key });
    },
    adminGetKey: async ({ path }, _req, res) => void res.json(await admin.get(path.id)),
    adminUpdateKey: async ({ path, body }, _req, res) => void res.json(await admin.update('admin', path.id, body)),
    adminRotateKey: async ({ path, body }, _req, res) => {
      const { key, record } = await admin.rotate('admin', path.id, body?.grace_seconds ?? 0);
      res.setHeader('Cache-Control', 'no-store');
      res.json({ ...record, key });
    },
    adminRevokeKey: async ({ path }, _req, res) => {
      await admin.revoke('admin', path.id);
      res.status(204).end();
    },
  };
}
