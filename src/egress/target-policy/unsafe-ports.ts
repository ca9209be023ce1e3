/**
 * The ports browsers refuse to connect to (the fetch standard's "bad port" list): services that
 * speak a line protocol a crafted HTTP request could drive (SMTP, IRC, printers, …). Chrome
 * enforces the same list on its own; scrapegate enforces it for both engines, and lets Chrome
 * through to its own check (`--explicitly-allowed-ports`), so one rule, with one exception
 * (TARGET_ALLOW_CIDRS), decides everywhere.
 */
export const UNSAFE_PORTS: ReadonlySet<number> = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111,
  113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548,
  554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665,
  6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);
