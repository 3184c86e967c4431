package release

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"
)

// File is one entry of an archive or image layer. A Name ending in "/" is
// a directory.
type File struct {
	Name string
	Mode fs.FileMode // permission bits (and fs.ModeSticky), e.g. 0o755
	UID  int
	GID  int
	Data []byte
}

// sorted returns files ordered by name, so that an archive's bytes do not
// depend on the order files were listed in.
func sorted(files []File) []File {
	out := slices.Clone(files)
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// WriteTar writes files as an uncompressed tar stream with every
// timestamp at mtime and no user or group names: the same files give
// the same bytes.
func WriteTar(w io.Writer, files []File, mtime time.Time) error {
	tw := tar.NewWriter(w)
	mtime = mtime.UTC().Truncate(time.Second)
	for _, f := range sorted(files) {
		h := &tar.Header{
			Name:    f.Name,
			Mode:    int64(f.Mode.Perm()),
			Uid:     f.UID,
			Gid:     f.GID,
			ModTime: mtime,
			Format:  tar.FormatUSTAR,
		}
		if f.Mode&fs.ModeSticky != 0 {
			h.Mode |= 0o1000 // c_ISVTX
		}
		if strings.HasSuffix(f.Name, "/") {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(f.Data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("tar entry %s: %w", f.Name, err)
		}
		if _, err := tw.Write(f.Data); err != nil {
			return fmt.Errorf("tar entry %s: %w", f.Name, err)
		}
	}
	return tw.Close()
}

// WriteTarGz writes files as a gzip-compressed tar (see WriteTar) whose
// gzip header carries no file name and no time.
func WriteTarGz(w io.Writer, files []File, mtime time.Time) error {
	zw, err := gzip.NewWriterLevel(w, gzip.DefaultCompression)
	if err != nil {
		return err
	}
	if err := WriteTar(zw, files, mtime); err != nil {
		return err
	}
	return zw.Close()
}

// WriteZip writes files as a zip archive with every timestamp at mtime
// (UTC) and Unix permissions, in name order.
func WriteZip(w io.Writer, files []File, mtime time.Time) error {
	zw := zip.NewWriter(w)
	mtime = mtime.UTC().Truncate(time.Second)
	for _, f := range sorted(files) {
		h := &zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: mtime}
		mode := f.Mode.Perm()
		if strings.HasSuffix(f.Name, "/") {
			h.Method = zip.Store
			mode |= fs.ModeDir
		}
		h.SetMode(mode)
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return fmt.Errorf("zip entry %s: %w", f.Name, err)
		}
		if _, err := fw.Write(f.Data); err != nil {
			return fmt.Errorf("zip entry %s: %w", f.Name, err)
		}
	}
	return zw.Close()
}
