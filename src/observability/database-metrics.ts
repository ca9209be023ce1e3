import { Counter, type Registry } from 'prom-client';

/**
 * Statements this instance sent to its database through knex (its `query` events, transactions'
 * BEGIN and COMMIT included; nothing else talks to the database), on the service's registry: what a request or a job item costs the database shared by every instance,
 * counted where it is spent (`npm run bench:batch` reads it per URL).
 */
export class DatabaseMetrics {
  private readonly statements: Counter;

  constructor(registry: Registry) {
    this.statements = new Counter({ name: 'scrapegate_database_statements_total', help: 'Statements this instance sent to the database through knex (BEGIN and COMMIT included).', registers: [registry] });
  }

  statementSent(): void {
    this.statements.inc();
  }
}
