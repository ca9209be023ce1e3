/**
 * The MySQL procedures migration 003 creates, as they were written then.
 * Frozen: a migration that has run somewhere must do the same everywhere, whatever the live code
 * (store/billing/mysql-*procedures.ts) becomes.
 */
export const PROCEDURES_003: readonly string[] = [
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
  `DROP PROCEDURE IF EXISTS scrapegate_refund`,
  `CREATE PROCEDURE scrapegate_refund(
  IN p_request_id VARCHAR(36), IN p_ended_at BIGINT, IN p_status INT, IN p_page_status INT, IN p_duration INT,
  IN p_failure VARCHAR(200), IN p_count_failure TINYINT, IN p_settled_by VARCHAR(10), IN p_proxy_country VARCHAR(2))
BEGIN
  DECLARE v_key INT DEFAULT NULL;
  DECLARE v_period BIGINT DEFAULT NULL;
  DECLARE v_cost INT DEFAULT NULL;
  DECLARE v_started BIGINT DEFAULT NULL;
  DECLARE v_browser TINYINT DEFAULT NULL;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
  START TRANSACTION;
  SELECT api_key_id, period_end, cost, started_at, browser INTO v_key, v_period, v_cost, v_started, v_browser
    FROM request_ledger WHERE request_id = p_request_id AND outcome = 'reserved' FOR UPDATE;
  IF v_key IS NOT NULL THEN
    UPDATE request_ledger SET outcome = 'refunded', settled_by = p_settled_by, ended_at = p_ended_at, status_sent = p_status,
        page_status = p_page_status, duration_ms = p_duration, failure = p_failure, proxy_country = COALESCE(p_proxy_country, proxy_country)
      WHERE request_id = p_request_id;
    UPDATE api_keys SET credits_remaining = credits_remaining + v_cost,
        browser_failures = CASE WHEN p_count_failure = 1 AND v_browser = 1 AND browser_window_start <= v_started THEN browser_failures + 1 ELSE browser_failures END
      WHERE id = v_key AND period_end = v_period;
    UPDATE key_periods SET credits_remaining = credits_remaining + v_cost WHERE api_key_id = v_key AND period_end = v_period;
    DELETE FROM concurrency_leases WHERE lease_id = p_request_id;
    COMMIT;
    SELECT 1 AS refunded;
  ELSE
    ROLLBACK;
    SELECT 0 AS refunded;
  END IF;
END`,
];
