#!/usr/bin/env bash
# Makes the MariaDB named by TEST_MYSQL_URL reachable: installs Debian's server when it is
# missing, starts it when it is down, and creates the database. Used by `npm test` when
# TEST_MYSQL_URL is set (as .ci/run sets it); does nothing otherwise.
set -euo pipefail
url="${TEST_MYSQL_URL:-}"
[ -n "$url" ] || exit 0
rest=${url#mysql://}
creds=${rest%%@*}; hostpart=${rest#*@}
user=${creds%%:*}; pass=""; [ "$creds" != "$user" ] && pass=${creds#*:}
hostport=${hostpart%%/*}; db=${hostpart#*/}; db=${db%%\?*}
host=${hostport%%:*}; port=${hostport#*:}; [ "$port" = "$hostport" ] && port=3306
ping() { mysqladmin --protocol=tcp -h "$host" -P "$port" -u "$user" ${pass:+-p"$pass"} ping >/dev/null 2>&1; }
if ! ping; then
  case "$host" in 127.0.0.1|localhost) ;; *) echo "MariaDB at $host:$port is not reachable" >&2; exit 1 ;; esac
  if ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; then
    echo "Installing MariaDB from Debian's packages..." >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server >/dev/null
  fi
  echo "Starting MariaDB..." >&2
  mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld 2>/dev/null || true
  start-stop-daemon --start --oknodo --background --make-pidfile --pidfile /tmp/mariadbd.pid \
    --exec /usr/sbin/mariadbd -- --user=mysql
  for _ in $(seq 1 60); do ping && break; sleep 0.5; done
  ping || { echo "MariaDB did not come up" >&2; exit 1; }
fi
mysql --protocol=tcp -h "$host" -P "$port" -u "$user" ${pass:+-p"$pass"} -e "CREATE DATABASE IF NOT EXISTS \`$db\`"
