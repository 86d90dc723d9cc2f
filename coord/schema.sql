-- The coordinator's tables, created by the first process that opens it
-- (under an advisory lock: CREATE ... IF NOT EXISTS alone races).

-- A key's grants in its current window, stamped by the database's clock.
CREATE TABLE IF NOT EXISTS etalake_rate_grants (
    id         bigserial   PRIMARY KEY,
    key_id     text        NOT NULL,
    granted_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS etalake_rate_grants_key ON etalake_rate_grants (key_id, granted_at);

-- A key's pause after a 429: no grant before until.
CREATE TABLE IF NOT EXISTS etalake_rate_pauses (
    key_id text        PRIMARY KEY,
    until  timestamptz NOT NULL
);

-- Credits settled, per key, product and service period.
CREATE TABLE IF NOT EXISTS etalake_credit_totals (
    key_id    text   NOT NULL,
    product   text   NOT NULL,
    period    text   NOT NULL,
    spent     bigint NOT NULL DEFAULT 0,
    uncertain bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (key_id, product, period)
);

-- Credits in flight: one row a reservation, until it settles, its holder
-- is found dead (counted uncertain), or its lease ends.
CREATE TABLE IF NOT EXISTS etalake_credit_reservations (
    id          bigserial   PRIMARY KEY,
    key_id      text        NOT NULL,
    product     text        NOT NULL,
    period      text        NOT NULL,
    lease_until timestamptz NOT NULL,
    -- The holder's id: its session holds the advisory lock
    -- (0x65746c6b, holder) while it lives (holder.go).
    holder      integer
);
CREATE INDEX IF NOT EXISTS etalake_credit_reservations_key ON etalake_credit_reservations (key_id, product, period);
