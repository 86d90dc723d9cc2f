package schema

import "github.com/apache/arrow-go/v18/arrow"

// Type is a column type, mapped one way to DuckDB and one way to Arrow so
// that an Arrow record of a table's schema loads into its DuckDB table
// without a cast.
type Type int

// The column types the warehouse uses. Timestamps are instants in UTC.
const (
	Varchar   Type = iota + 1 // VARCHAR ↔ utf8
	BigInt                    // BIGINT ↔ int64
	Integer                   // INTEGER ↔ int32
	Double                    // DOUBLE ↔ float64
	Boolean                   // BOOLEAN ↔ bool
	Timestamp                 // TIMESTAMPTZ ↔ timestamp[us, UTC]
	Date                      // DATE ↔ date32
	Blob                      // BLOB ↔ binary
	JSON                      // JSON ↔ utf8 holding a JSON document
	// Seen is an observation: STRUCT(seen_at TIMESTAMPTZ, response_id
	// VARCHAR) ↔ struct<seen_at: timestamp[us, UTC], response_id: utf8>.
	// DuckDB compares two field by field, so the later seen_at is the
	// greater, and of two at the same instant the greater response_id.
	Seen
)

// The fields of a Seen value.
const (
	SeenAt       = "seen_at"
	SeenResponse = "response_id"
)

// DuckDB is the type's DuckDB name.
func (t Type) DuckDB() string {
	switch t {
	case Varchar:
		return "VARCHAR"
	case BigInt:
		return "BIGINT"
	case Integer:
		return "INTEGER"
	case Double:
		return "DOUBLE"
	case Boolean:
		return "BOOLEAN"
	case Timestamp:
		return "TIMESTAMPTZ"
	case Date:
		return "DATE"
	case Blob:
		return "BLOB"
	case JSON:
		return "JSON"
	case Seen:
		return "STRUCT(" + SeenAt + " TIMESTAMPTZ, " + SeenResponse + " VARCHAR)"
	}
	panic("schema: unknown type")
}

// TimestampType is the Arrow type of every Timestamp column.
var TimestampType = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}

// Arrow is the type's Arrow data type.
func (t Type) Arrow() arrow.DataType {
	switch t {
	case Varchar, JSON:
		return arrow.BinaryTypes.String
	case BigInt:
		return arrow.PrimitiveTypes.Int64
	case Integer:
		return arrow.PrimitiveTypes.Int32
	case Double:
		return arrow.PrimitiveTypes.Float64
	case Boolean:
		return arrow.FixedWidthTypes.Boolean
	case Timestamp:
		return TimestampType
	case Date:
		return arrow.FixedWidthTypes.Date32
	case Blob:
		return arrow.BinaryTypes.Binary
	case Seen:
		return arrow.StructOf(
			arrow.Field{Name: SeenAt, Type: TimestampType, Nullable: true},
			arrow.Field{Name: SeenResponse, Type: arrow.BinaryTypes.String, Nullable: true})
	}
	panic("schema: unknown type")
}
