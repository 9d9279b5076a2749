// Package importfile is the shape of an import's file and parts (docs/rest.md, "Imports"):
// its limits, formats and parameters, and the XLSX reader. It runs no job, so the REST
// adapter reads a request with it without depending on the queue that package imports
// runs on.
package importfile

// Limits of an import's file (docs/rest.md, "Imports").
const (
	MaxFileBytes = 50 << 20 // the largest file taken
	MaxRows      = 200_000  // the most rows a file may hold, header not counted
)

// File formats (FormatXLSX is read as CSV by XLSXAsCSV).
const (
	FormatCSV    = "csv"
	FormatNDJSON = "ndjson"
)

// Params are an import's parts beside its file.
type Params struct {
	Resource   string
	Operation  string
	Match      string
	Mapping    map[string]string
	Format     string // csv (default) or ndjson
	Delimiter  rune   // CSV only; default ','
	DateFormat string // a key of workspace.ImportDateFormats, or ""
}
