package importfile

import (
	"archive/zip"
	"encoding/csv"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/agencyos/workspaced/apierr"
)

// MaxXLSXInflated bounds what an XLSX file (a zip) may unpack to, all the parts read
// together: a file that inflates past it is refused, whatever its entries declare.
const MaxXLSXInflated = 200 << 20

// FormatXLSX is a spreadsheet: its first worksheet is read as a CSV file would be.
const FormatXLSX = "xlsx"

// XLSXAsCSV reads the first worksheet of the XLSX file r (size bytes) and returns it as
// CSV, written as it is read: cells as their text (shared and inline strings, numbers
// as written in the file). A file that is not an XLSX, or unpacks past MaxXLSXInflated,
// is a 400. Close the reader when done with it: that ends the worksheet's reading.
func XLSXAsCSV(r io.ReaderAt, size int64) (io.ReadCloser, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, apierr.BadRequest("file is not an XLSX file (not a zip)")
	}
	budget := &inflated{left: MaxXLSXInflated}
	var strs []string
	var sheet *zip.File
	for _, f := range zr.File {
		switch f.Name {
		case "xl/sharedStrings.xml":
			if strs, err = sharedStrings(f, budget); err != nil {
				return nil, err
			}
		case "xl/worksheets/sheet1.xml":
			sheet = f
		}
	}
	if sheet == nil {
		return nil, apierr.BadRequest("file is not an XLSX file: it has no first worksheet")
	}
	rc, err := sheet.Open()
	if err != nil {
		return nil, apierr.BadRequest("file is not an XLSX file: its worksheet could not be read")
	}
	pr, pw := io.Pipe()
	go func() {
		defer rc.Close()
		pw.CloseWithError(writeSheet(pw, budget.wrap(rc), strs))
	}()
	return pr, nil
}

// inflated counts the bytes unpacked across the parts.
type inflated struct{ left int64 }

func (b *inflated) wrap(r io.Reader) io.Reader { return &budgetReader{r: r, b: b} }

type budgetReader struct {
	r io.Reader
	b *inflated
}

var errInflated = apierr.BadRequest("the XLSX file unpacks to more than %d MB; save it as CSV or split it", MaxXLSXInflated>>20)

func (br *budgetReader) Read(p []byte) (int, error) {
	n, err := br.r.Read(p)
	if br.b.left -= int64(n); br.b.left < 0 {
		return n, errInflated
	}
	return n, err
}

func sharedStrings(f *zip.File, budget *inflated) ([]string, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, apierr.BadRequest("file is not an XLSX file: its strings could not be read")
	}
	defer rc.Close()
	dec := xml.NewDecoder(budget.wrap(rc))
	var out []string
	var cur strings.Builder
	inT := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, xlsxError(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "si":
				cur.Reset()
			case "t":
				inT = true
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "si":
				out = append(out, cur.String())
			case "t":
				inT = false
			}
		case xml.CharData:
			if inT {
				cur.Write(t)
			}
		}
	}
}

func xlsxError(err error) error {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e
	}
	return apierr.BadRequest("file is not an XLSX file: its XML does not parse")
}

// writeSheet writes the worksheet's rows as CSV records, each cell at its column.
func writeSheet(w io.Writer, r io.Reader, strs []string) error {
	cw := csv.NewWriter(w)
	dec := xml.NewDecoder(r)
	var row []string
	var col int
	var typ string
	var val strings.Builder
	inV := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			cw.Flush()
			return cw.Error()
		}
		if err != nil {
			return xlsxError(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "row":
				row = row[:0]
			case "c":
				typ, col = "", len(row)
				val.Reset()
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "t":
						typ = a.Value
					case "r":
						if c := columnIndex(a.Value); c >= 0 {
							col = c
						}
					}
				}
			case "v", "t":
				inV = true
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "v", "t":
				inV = false
			case "c":
				if col > 16384 { // XLSX's last column is XFD
					return apierr.BadRequest("file is not an XLSX file: a cell past the last column")
				}
				for len(row) < col {
					row = append(row, "")
				}
				v := val.String()
				if typ == "s" {
					i, err := strconv.Atoi(v)
					if err != nil || i < 0 || i >= len(strs) {
						return apierr.BadRequest("file is not an XLSX file: a cell names a string it lacks")
					}
					v = strs[i]
				}
				row = append(row[:col], v)
			case "row":
				if err := cw.Write(row); err != nil {
					return err
				}
			}
		case xml.CharData:
			if inV {
				val.Write(t)
			}
		}
	}
}

// columnIndex reads the column of a cell reference such as "C7" (0 for A), or -1.
func columnIndex(ref string) int {
	n := 0
	i := 0
	for ; i < len(ref) && ref[i] >= 'A' && ref[i] <= 'Z'; i++ {
		n = n*26 + int(ref[i]-'A'+1)
		if n > 16384 {
			return -1
		}
	}
	if i == 0 {
		return -1
	}
	return n - 1
}
