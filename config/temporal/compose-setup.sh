#!/bin/sh
# Run by docker-compose.yml in Temporal's official admin-tools image (temporal-sql-tool, the
# temporal CLI and the SQL schema under /etc/temporal/schema). Idempotent: safe on every `up`.
#   compose-setup.sh schema      create both databases if missing, then migrate them to the latest schema
#   compose-setup.sh namespace   create the namespace and register the service's search attributes
set -eu

sql() { temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "${DB_PORT:-5432}" -u "$POSTGRES_USER" --pw "$POSTGRES_PWD" "$@"; }

case "${1:-}" in
  schema)
    for pair in "${DBNAME:-temporal}:temporal" "${VISIBILITY_DBNAME:-temporal_visibility}:visibility"; do
      db="${pair%%:*}"; kind="${pair##*:}"
      sql --db "$db" create 2>/dev/null || echo "database $db exists"
      # setup-schema -v 0.0 only creates the versioning table; it fails harmlessly once it exists.
      sql --db "$db" setup-schema -v 0.0 2>/dev/null || true
      sql --db "$db" update-schema -d "/etc/temporal/schema/postgresql/v12/$kind/versioned"
    done
    ;;
  namespace)
    address="${TEMPORAL_ADDRESS:-temporal:7233}"
    namespace="${TEMPORAL_NAMESPACE:-default}"
    i=0
    until temporal operator cluster health --address "$address" >/dev/null 2>&1; do
      i=$((i + 1)); [ "$i" -lt 120 ] || { echo "Temporal at $address is not healthy"; exit 1; }
      sleep 1
    done
    temporal operator namespace describe --address "$address" --namespace "$namespace" >/dev/null 2>&1 \
      || temporal operator namespace create --address "$address" --namespace "$namespace" --retention "${TEMPORAL_RETENTION:-72h}"
    for name in MerchantId CustomerId CheckoutType; do
      temporal operator search-attribute create --address "$address" --namespace "$namespace" --name "$name" --type Keyword >/dev/null 2>&1 \
        || echo "search attribute $name exists"
    done
    ;;
  *)
    echo "usage: $0 schema|namespace" >&2
    exit 64
    ;;
esac
