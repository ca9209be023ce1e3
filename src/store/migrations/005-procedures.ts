/**
 * The MySQL procedures migration 005 replaces (up) and restores (down), as they were written then.
 * Frozen: a migration that has run somewhere must do the same everywhere, whatever the live code
 * (store/billing/mysql-*procedures.ts) becomes.
 */
export const PROCEDURES_005_UP: readonly string[] = [
  `DROP PROCEDURE IF EXISTS scrapegate_reserve`,
  `CREATE PROCEDURE scrapegate_reserve(
  IN p_request_id VARCHAR(36), IN p_key_hash CHAR(64), IN p_api_key_id INT, IN p_period_end BIGINT,
  IN p_cost INT, IN p_browser TINYINT, IN p_at BIGINT, IN p_expired BIGINT, IN p_budget_from BIGINT, IN p_allowance INT,
  IN p_settle_limit_ms INT, IN p_instance VARCHAR(36), IN p_operation VARCHAR(40), IN p_engine VARCHAR(20),
  IN p_proxy_type VARCHAR(20), IN p_proxy_country VARCHAR(2), IN p_host VARCHAR(255))
BEGIN
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
  START TRANSACTION;
  IF p_api_key_id IS NULL THEN
    UPDATE api_keys SET credits_remaining = credits_remaining - p_cost, browser_attempts = CASE WHEN p_browser = 0 THEN browser_attempts WHEN browser_window_start <= p_expired THEN 1 ELSE browser_attempts + 1 END,
      browser_failures = CASE WHEN p_browser = 0 THEN browser_failures WHEN browser_window_start <= p_expired THEN 0 ELSE browser_failures END,
      browser_window_start = CASE WHEN p_browser = 0 THEN browser_window_start WHEN browser_window_start <= p_expired THEN p_at ELSE browser_window_start END
      WHERE key_hash = p_key_hash AND revoked_at IS NULL AND max_concurrency IS NULL AND allowed_ips IS NULL
        AND period_start <= p_at AND period_end > p_at AND credits_remaining >= p_cost AND (p_browser = 0 OR browser_window_start <= p_budget_from OR browser_failures < p_allowance OR browser_failures * 2 < browser_attempts);
  ELSE
    UPDATE api_keys SET credits_remaining = credits_remaining - p_cost, browser_attempts = CASE WHEN p_browser = 0 THEN browser_attempts WHEN browser_window_start <= p_expired THEN 1 ELSE browser_attempts + 1 END,
      browser_failures = CASE WHEN p_browser = 0 THEN browser_failures WHEN browser_window_start <= p_expired THEN 0 ELSE browser_failures END,
      browser_window_start = CASE WHEN p_browser = 0 THEN browser_window_start WHEN browser_window_start <= p_expired THEN p_at ELSE browser_window_start END
      WHERE id = p_api_key_id AND period_end = p_period_end AND revoked_at IS NULL AND credits_remaining >= p_cost AND (p_browser = 0 OR browser_window_start <= p_budget_from OR browser_failures < p_allowance OR browser_failures * 2 < browser_attempts);
  END IF;
  IF ROW_COUNT() = 1 THEN
    IF p_api_key_id IS NULL THEN
      INSERT INTO request_ledger (request_id, api_key_id, period_end, instance_id, operation, engine, proxy_type, proxy_country, target_host, cost, browser,
      outcome, started_at, reserved_at_db, settle_limit_ms) SELECT p_request_id, id, period_end, p_instance, p_operation, p_engine, p_proxy_type, p_proxy_country, p_host, p_cost, p_browser,
      'reserved', p_at, CAST(UNIX_TIMESTAMP(SYSDATE(3)) * 1000 AS SIGNED), p_settle_limit_ms FROM api_keys WHERE key_hash = p_key_hash;
    ELSE
      INSERT INTO request_ledger (request_id, api_key_id, period_end, instance_id, operation, engine, proxy_type, proxy_country, target_host, cost, browser,
      outcome, started_at, reserved_at_db, settle_limit_ms) SELECT p_request_id, id, period_end, p_instance, p_operation, p_engine, p_proxy_type, p_proxy_country, p_host, p_cost, p_browser,
      'reserved', p_at, CAST(UNIX_TIMESTAMP(SYSDATE(3)) * 1000 AS SIGNED), p_settle_limit_ms FROM api_keys WHERE id = p_api_key_id;
    END IF;
    COMMIT;
    SELECT 1 AS reserved;
  ELSE
    ROLLBACK;
    SELECT 0 AS reserved;
  END IF;
END`,
  `DROP PROCEDURE IF EXISTS scrapegate_reserve_batch`,
  `CREATE PROCEDURE scrapegate_reserve_batch(IN p_batch LONGTEXT)
BEGIN
  DECLARE v_done TINYINT DEFAULT 0;
  DECLARE v_out TEXT DEFAULT '';
  DECLARE p_request_id VARCHAR(36); DECLARE p_key_hash CHAR(64); DECLARE p_api_key_id INT; DECLARE p_period_end BIGINT;
  DECLARE p_cost INT; DECLARE p_browser TINYINT; DECLARE p_at BIGINT; DECLARE p_expired BIGINT; DECLARE p_budget_from BIGINT;
  DECLARE p_allowance INT; DECLARE p_settle_limit_ms INT; DECLARE p_instance VARCHAR(36); DECLARE p_operation VARCHAR(40);
  DECLARE p_engine VARCHAR(20); DECLARE p_proxy_type VARCHAR(20); DECLARE p_proxy_country VARCHAR(2); DECLARE p_host VARCHAR(255);
  DECLARE each_reservation CURSOR FOR SELECT * FROM JSON_TABLE(p_batch, '$[*]' COLUMNS(request_id VARCHAR(36) PATH '$.r', key_hash CHAR(64) PATH '$.h', api_key_id INT PATH '$.k', period_end BIGINT PATH '$.p',
      cost INT PATH '$.c', browser TINYINT PATH '$.b', at_ms BIGINT PATH '$.a', expired BIGINT PATH '$.e', budget_from BIGINT PATH '$.f',
      allowance INT PATH '$.w', settle_limit_ms INT PATH '$.s', instance VARCHAR(36) PATH '$.i', operation VARCHAR(40) PATH '$.o',
      engine VARCHAR(20) PATH '$.g', proxy_type VARCHAR(20) PATH '$.t', proxy_country VARCHAR(2) PATH '$.y', host VARCHAR(255) PATH '$.n')) AS batch;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_done = 1;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
  START TRANSACTION;
  OPEN each_reservation;
  reservations: LOOP
    FETCH each_reservation INTO p_request_id, p_key_hash, p_api_key_id, p_period_end, p_cost, p_browser, p_at, p_expired,
      p_budget_from, p_allowance, p_settle_limit_ms, p_instance, p_operation, p_engine, p_proxy_type, p_proxy_country, p_host;
    IF v_done = 1 THEN LEAVE reservations; END IF;
    IF p_api_key_id IS NULL THEN
    UPDATE api_keys SET credits_remaining = credits_remaining - p_cost, browser_attempts = CASE WHEN p_browser = 0 THEN browser_attempts WHEN browser_window_start <= p_expired THEN 1 ELSE browser_attempts + 1 END,
      browser_failures = CASE WHEN p_browser = 0 THEN browser_failures WHEN browser_window_start <= p_expired THEN 0 ELSE browser_failures END,
      browser_window_start = CASE WHEN p_browser = 0 THEN browser_window_start WHEN browser_window_start <= p_expired THEN p_at ELSE browser_window_start END
      WHERE key_hash = p_key_hash AND revoked_at IS NULL AND max_concurrency IS NULL AND allowed_ips IS NULL
        AND period_start <= p_at AND period_end > p_at AND credits_remaining >= p_cost AND (p_browser = 0 OR browser_window_start <= p_budget_from OR browser_failures < p_allowance OR browser_failures * 2 < browser_attempts);
  ELSE
    UPDATE api_keys SET credits_remaining = credits_remaining - p_cost, browser_attempts = CASE WHEN p_browser = 0 THEN browser_attempts WHEN browser_window_start <= p_expired THEN 1 ELSE browser_attempts + 1 END,
      browser_failures = CASE WHEN p_browser = 0 THEN browser_failures WHEN browser_window_start <= p_expired THEN 0 ELSE browser_failures END,
      browser_window_start = CASE WHEN p_browser = 0 THEN browser_window_start WHEN browser_window_start <= p_expired THEN p_at ELSE browser_window_start END
      WHERE id = p_api_key_id AND period_end = p_period_end AND revoked_at IS NULL AND credits_remaining >= p_cost AND (p_browser = 0 OR browser_window_start <= p_budget_from OR browser_failures < p_allowance OR browser_failures * 2 < browser_attempts);
  END IF;
    IF ROW_COUNT() = 1 THEN
      IF p_api_key_id IS NULL THEN
      INSERT INTO request_ledger (request_id, api_key_id, period_end, instance_id, operation, engine, proxy_type, proxy_country, target_host, cost, browser,
      outcome, started_at, reserved_at_db, settle_limit_ms) SELECT p_request_id, id, period_end, p_instance, p_operation, p_engine, p_proxy_type, p_proxy_country, p_host, p_cost, p_browser,
      'reserved', p_at, CAST(UNIX_TIMESTAMP(SYSDATE(3)) * 1000 AS SIGNED), p_settle_limit_ms FROM api_keys WHERE key_hash = p_key_hash;
    ELSE
      INSERT INTO request_ledger (request_id, api_key_id, period_end, instance_id, operation, engine, proxy_type, proxy_country, target_host, cost, browser,
      outcome, started_at, reserved_at_db, settle_limit_ms) SELECT p_request_id, id, period_end, p_instance, p_operation, p_engine, p_proxy_type, p_proxy_country, p_host, p_cost, p_browser,
      'reserved', p_at, CAST(UNIX_TIMESTAMP(SYSDATE(3)) * 1000 AS SIGNED), p_settle_limit_ms FROM api_keys WHERE id = p_api_key_id;
    END IF;
      SET v_out = CONCAT(v_out, '1');
    ELSE
      SET v_out = CONCAT(v_out, '0');
    END IF;
  END LOOP;
  CLOSE each_reservation;
  COMMIT;
  SELECT v_out AS reserved;
END`,
];

export const PROCEDURES_005_DOWN: readonly string[] = [
  `DROP PROCEDURE IF EXISTS scrapegate_reserve`,
  `CREATE PROCEDURE scrapegate_reserve(
  IN p_request_id VARCHAR(36), IN p_key_hash CHAR(64), IN p_api_key_id INT, IN p_period_end BIGINT,
  IN p_cost INT, IN p_browser TINYINT, IN p_at BIGINT, IN p_expired BIGINT, IN p_budget_from BIGINT, IN p_allowance INT,
  IN p_settle_limit_ms INT, IN p_instance VARCHAR(36), IN p_operation VARCHAR(40), IN p_engine VARCHAR(20),
  IN p_proxy_type VARCHAR(20), IN p_proxy_country VARCHAR(2), IN p_host VARCHAR(255))
BEGIN
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
  START TRANSACTION;
  IF p_api_key_id IS NULL THEN
    UPDATE api_keys SET credits_remaining = credits_remaining - p_cost, browser_attempts = CASE WHEN p_browser = 0 THEN browser_attempts WHEN browser_window_start <= p_expired THEN 1 ELSE browser_attempts + 1 END,
      browser_failures = CASE WHEN p_browser = 0 THEN browser_failures WHEN browser_window_start <= p_expired THEN 0 ELSE browser_failures END,
      browser_window_start = CASE WHEN p_browser = 0 THEN browser_window_start WHEN browser_window_start <= p_expired THEN p_at ELSE browser_window_start END
      WHERE key_hash = p_key_hash AND revoked_at IS NULL AND max_concurrency IS NULL
        AND period_start <= p_at AND period_end > p_at AND credits_remaining >= p_cost AND (p_browser = 0 OR browser_window_start <= p_budget_from OR browser_failures < p_allowance OR browser_failures * 2 < browser_attempts);
  ELSE
    UPDATE api_keys SET credits_remaining = credits_remaining - p_cost, browser_attempts = CASE WHEN p_browser = 0 THEN browser_attempts WHEN browser_window_start <= p_expired THEN 1 ELSE browser_attempts + 1 END,
      browser_failures = CASE WHEN p_browser = 0 THEN browser_failures WHEN browser_window_start <= p_expired THEN 0 ELSE browser_failures END,
      browser_window_start = CASE WHEN p_browser = 0 THEN browser_window_start WHEN browser_window_start <= p_expired THEN p_at ELSE browser_window_start END
      WHERE id = p_api_key_id AND period_end = p_period_end AND revoked_at IS NULL AND credits_remaining >= p_cost AND (p_browser = 0 OR browser_window_start <= p_budget_from OR browser_failures < p_allowance OR browser_failures * 2 < browser_attempts);
  END IF;
  IF ROW_COUNT() = 1 THEN
    IF p_api_key_id IS NULL THEN
      INSERT INTO request_ledger (request_id, api_key_id, period_end, instance_id, operation, engine, proxy_type, proxy_country, target_host, cost, browser,
      outcome, started_at, reserved_at_db, settle_limit_ms) SELECT p_request_id, id, period_end, p_instance, p_operation, p_engine, p_proxy_type, p_proxy_country, p_host, p_cost, p_browser,
      'reserved', p_at, CAST(UNIX_TIMESTAMP(SYSDATE(3)) * 1000 AS SIGNED), p_settle_limit_ms FROM api_keys WHERE key_hash = p_key_hash;
    ELSE
      INSERT INTO request_ledger (request_id, api_key_id, period_end, instance_id, operation, engine, proxy_type, proxy_country, target_host, cost, browser,
      outcome, started_at, reserved_at_db, settle_limit_ms) SELECT p_request_id, id, period_end, p_instance, p_operation, p_engine, p_proxy_type, p_proxy_country, p_host, p_cost, p_browser,
      'reserved', p_at, CAST(UNIX_TIMESTAMP(SYSDATE(3)) * 1000 AS SIGNED), p_settle_limit_ms FROM api_keys WHERE id = p_api_key_id;
    END IF;
    COMMIT;
    SELECT 1 AS reserved;
  ELSE
    ROLLBACK;
    SELECT 0 AS reserved;
  END IF;
END`,
  `DROP PROCEDURE IF EXISTS scrapegate_reserve_batch`,
  `CREATE PROCEDURE scrapegate_reserve_batch(IN p_batch LONGTEXT)
BEGIN
  DECLARE v_done TINYINT DEFAULT 0;
  DECLARE v_out TEXT DEFAULT '';
  DECLARE p_request_id VARCHAR(36); DECLARE p_key_hash CHAR(64); DECLARE p_api_key_id INT; DECLARE p_period_end BIGINT;
  DECLARE p_cost INT; DECLARE p_browser TINYINT; DECLARE p_at BIGINT; DECLARE p_expired BIGINT; DECLARE p_budget_from BIGINT;
  DECLARE p_allowance INT; DECLARE p_settle_limit_ms INT; DECLARE p_instance VARCHAR(36); DECLARE p_operation VARCHAR(40);
  DECLARE p_engine VARCHAR(20); DECLARE p_proxy_type VARCHAR(20); DECLARE p_proxy_country VARCHAR(2); DECLARE p_host VARCHAR(255);
  DECLARE each_reservation CURSOR FOR SELECT * FROM JSON_TABLE(p_batch, '$[*]' COLUMNS(request_id VARCHAR(36) PATH '$.r', key_hash CHAR(64) PATH '$.h', api_key_id INT PATH '$.k', period_end BIGINT PATH '$.p',
      cost INT PATH '$.c', browser TINYINT PATH '$.b', at_ms BIGINT PATH '$.a', expired BIGINT PATH '$.e', budget_from BIGINT PATH '$.f',
      allowance INT PATH '$.w', settle_limit_ms INT PATH '$.s', instance VARCHAR(36) PATH '$.i', operation VARCHAR(40) PATH '$.o',
      engine VARCHAR(20) PATH '$.g', proxy_type VARCHAR(20) PATH '$.t', proxy_country VARCHAR(2) PATH '$.y', host VARCHAR(255) PATH '$.n')) AS batch;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_done = 1;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
  START TRANSACTION;
  OPEN each_reservation;
  reservations: LOOP
    FETCH each_reservation INTO p_request_id, p_key_hash, p_api_key_id, p_period_end, p_cost, p_browser, p_at, p_expired,
      p_budget_from, p_allowance, p_settle_limit_ms, p_instance, p_operation, p_engine, p_proxy_type, p_proxy_country, p_host;
    IF v_done = 1 THEN LEAVE reservations; END IF;
    IF p_api_key_id IS NULL THEN
    UPDATE api_keys SET credits_remaining = credits_remaining - p_cost, browser_attempts = CASE WHEN p_browser = 0 THEN browser_attempts WHEN browser_window_start <= p_expired THEN 1 ELSE browser_attempts + 1 END,
      browser_failures = CASE WHEN p_browser = 0 THEN browser_failures WHEN browser_window_start <= p_expired THEN 0 ELSE browser_failures END,
      browser_window_start = CASE WHEN p_browser = 0 THEN browser_window_start WHEN browser_window_start <= p_expired THEN p_at ELSE browser_window_start END
      WHERE key_hash = p_key_hash AND revoked_at IS NULL AND max_concurrency IS NULL
        AND period_start <= p_at AND period_end > p_at AND credits_remaining >= p_cost AND (p_browser = 0 OR browser_window_start <= p_budget_from OR browser_failures < p_allowance OR browser_failures * 2 < browser_attempts);
  ELSE
    UPDATE api_keys SET credits_remaining = credits_remaining - p_cost, browser_attempts = CASE WHEN p_browser = 0 THEN browser_attempts WHEN browser_window_start <= p_expired THEN 1 ELSE browser_attempts + 1 END,
      browser_failures = CASE WHEN p_browser = 0 THEN browser_failures WHEN browser_window_start <= p_expired THEN 0 ELSE browser_failures END,
      browser_window_start = CASE WHEN p_browser = 0 THEN browser_window_start WHEN browser_window_start <= p_expired THEN p_at ELSE browser_window_start END
      WHERE id = p_api_key_id AND period_end = p_period_end AND revoked_at IS NULL AND credits_remaining >= p_cost AND (p_browser = 0 OR browser_window_start <= p_budget_from OR browser_failures < p_allowance OR browser_failures * 2 < browser_attempts);
  END IF;
    IF ROW_COUNT() = 1 THEN
      IF p_api_key_id IS NULL THEN
      INSERT INTO request_ledger (request_id, api_key_id, period_end, instance_id, operation, engine, proxy_type, proxy_country, target_host, cost, browser,
      outcome, started_at, reserved_at_db, settle_limit_ms) SELECT p_request_id, id, period_end, p_instance, p_operation, p_engine, p_proxy_type, p_proxy_country, p_host, p_cost, p_browser,
      'reserved', p_at, CAST(UNIX_TIMESTAMP(SYSDATE(3)) * 1000 AS SIGNED), p_settle_limit_ms FROM api_keys WHERE key_hash = p_key_hash;
    ELSE
      INSERT INTO request_ledger (request_id, api_key_id, period_end, instance_id, operation, engine, proxy_type, proxy_country, target_host, cost, browser,
      outcome, started_at, reserved_at_db, settle_limit_ms) SELECT p_request_id, id, period_end, p_instance, p_operation, p_engine, p_proxy_type, p_proxy_country, p_host, p_cost, p_browser,
      'reserved', p_at, CAST(UNIX_TIMESTAMP(SYSDATE(3)) * 1000 AS SIGNED), p_settle_limit_ms FROM api_keys WHERE id = p_api_key_id;
    END IF;
      SET v_out = CONCAT(v_out, '1');
    ELSE
      SET v_out = CONCAT(v_out, '0');
    END IF;
  END LOOP;
  CLOSE each_reservation;
  COMMIT;
  SELECT v_out AS reserved;
END`,
];
