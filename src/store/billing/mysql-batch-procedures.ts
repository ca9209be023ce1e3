import { debit, HOT_PATH_KEY_BEFORE_005, LEDGER_INSERT, MYSQL_NOW_MS } from './mysql-procedures.js';

/**
 * The charge of one reserved row, given the SQL for each value (`?` for a statement's bindings,
 * a variable inside a procedure): it lands only while the database's clock says the request's
 * window is open, so a charge still in flight when its request gave up never lands later.
 */
export function chargeStatement(v: { endedAt: string; status: string; pageStatus: string; durationMs: string; proxyCountry: string; requestId: string; windowMs: string }): string {
  return `UPDATE request_ledger SET outcome = 'charged', settled_by = 'request', ended_at = ${v.endedAt}, status_sent = ${v.status},
  page_status = ${v.pageStatus}, duration_ms = ${v.durationMs}, proxy_country = COALESCE(${v.proxyCountry}, proxy_country)
  WHERE request_id = ${v.requestId} AND outcome = 'reserved' AND ${MYSQL_NOW_MS} - reserved_at_db < LEAST(${v.windowMs}, settle_limit_ms)`;
}

/** The JSON fields of one reservation in a batch (mysql-ledger.ts writes them). */
const RESERVE_COLUMNS = `request_id VARCHAR(36) PATH '$.r', key_hash CHAR(64) PATH '$.h', api_key_id INT PATH '$.k', period_end BIGINT PATH '$.p',
      cost INT PATH '$.c', browser TINYINT PATH '$.b', at_ms BIGINT PATH '$.a', expired BIGINT PATH '$.e', budget_from BIGINT PATH '$.f',
      allowance INT PATH '$.w', settle_limit_ms INT PATH '$.s', instance VARCHAR(36) PATH '$.i', operation VARCHAR(40) PATH '$.o',
      engine VARCHAR(20) PATH '$.g', proxy_type VARCHAR(20) PATH '$.t', proxy_country VARCHAR(2) PATH '$.y', host VARCHAR(255) PATH '$.n'`;

/**
 * Many reservations in one round trip and one commit: each is exactly the single procedure's
 * debit and ledger row, in the order given (the caller sorts by key, so two batches lock keys in
 * the same order). One that does not hold leaves the others alone; an error rolls back the whole
 * batch. Answers one row: `reserved`, a string of '1' and '0', one character per reservation.
 */
export const reserveBatchProcedure = (hotPathKey: string) => `CREATE PROCEDURE scrapegate_reserve_batch(IN p_batch LONGTEXT)
BEGIN
  DECLARE v_done TINYINT DEFAULT 0;
  DECLARE v_out TEXT DEFAULT '';
  DECLARE p_request_id VARCHAR(36); DECLARE p_key_hash CHAR(64); DECLARE p_api_key_id INT; DECLARE p_period_end BIGINT;
  DECLARE p_cost INT; DECLARE p_browser TINYINT; DECLARE p_at BIGINT; DECLARE p_expired BIGINT; DECLARE p_budget_from BIGINT;
  DECLARE p_allowance INT; DECLARE p_settle_limit_ms INT; DECLARE p_instance VARCHAR(36); DECLARE p_operation VARCHAR(40);
  DECLARE p_engine VARCHAR(20); DECLARE p_proxy_type VARCHAR(20); DECLARE p_proxy_country VARCHAR(2); DECLARE p_host VARCHAR(255);
  DECLARE each_reservation CURSOR FOR SELECT * FROM JSON_TABLE(p_batch, '$[*]' COLUMNS(${RESERVE_COLUMNS})) AS batch;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_done = 1;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
  START TRANSACTION;
  OPEN each_reservation;
  reservations: LOOP
    FETCH each_reservation INTO p_request_id, p_key_hash, p_api_key_id, p_period_end, p_cost, p_browser, p_at, p_expired,
      p_budget_from, p_allowance, p_settle_limit_ms, p_instance, p_operation, p_engine, p_proxy_type, p_proxy_country, p_host;
    IF v_done = 1 THEN LEAVE reservations; END IF;
    ${debit(hotPathKey)}
    IF ROW_COUNT() = 1 THEN
      ${LEDGER_INSERT}
      SET v_out = CONCAT(v_out, '1');
    ELSE
      SET v_out = CONCAT(v_out, '0');
    END IF;
  END LOOP;
  CLOSE each_reservation;
  COMMIT;
  SELECT v_out AS reserved;
END`;

/**
 * Many charges in one round trip and one commit, in the order given (sorted by request id), each
 * the single charge's statement. Answers `charged`, one '1' or '0' per charge.
 */
const CHARGE_BATCH = `CREATE PROCEDURE scrapegate_charge_batch(IN p_batch LONGTEXT)
BEGIN
  DECLARE v_done TINYINT DEFAULT 0;
  DECLARE v_out TEXT DEFAULT '';
  DECLARE p_request_id VARCHAR(36); DECLARE p_ended_at BIGINT; DECLARE p_status INT; DECLARE p_page_status INT;
  DECLARE p_duration INT; DECLARE p_proxy_country VARCHAR(2); DECLARE p_window BIGINT;
  DECLARE each_charge CURSOR FOR SELECT * FROM JSON_TABLE(p_batch, '$[*]' COLUMNS(request_id VARCHAR(36) PATH '$.r',
      ended_at BIGINT PATH '$.e', status INT PATH '$.s', page_status INT PATH '$.p', duration INT PATH '$.d',
      proxy_country VARCHAR(2) PATH '$.y', window_ms BIGINT PATH '$.w')) AS batch;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_done = 1;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
  START TRANSACTION;
  OPEN each_charge;
  charges: LOOP
    FETCH each_charge INTO p_request_id, p_ended_at, p_status, p_page_status, p_duration, p_proxy_country, p_window;
    IF v_done = 1 THEN LEAVE charges; END IF;
    ${chargeStatement({ endedAt: 'p_ended_at', status: 'p_status', pageStatus: 'p_page_status', durationMs: 'p_duration', proxyCountry: 'p_proxy_country', requestId: 'p_request_id', windowMs: 'p_window' })};
    SET v_out = CONCAT(v_out, IF(ROW_COUNT() = 1, '1', '0'));
  END LOOP;
  CLOSE each_charge;
  COMMIT;
  SELECT v_out AS charged;
END`;

/** Created by the batches' migration (and dropped by its `down`), as they were then; 005 recreates the reservation. */
export const MYSQL_BATCH_PROCEDURES = [
  'DROP PROCEDURE IF EXISTS scrapegate_reserve_batch', reserveBatchProcedure(HOT_PATH_KEY_BEFORE_005),
  'DROP PROCEDURE IF EXISTS scrapegate_charge_batch', CHARGE_BATCH,
];
