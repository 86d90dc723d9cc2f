package main

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/jobs"
)

// listItems splits a list flag: comma-separated values, or
// @FILE for one value per line (blank lines and # comments skipped; in a
// CSV file with a header, the first column). Each item comes with where it
// was read, for error messages.
func listItems(flag, value string) ([]item, error) {
	value = strings.TrimSpace(value)
	if value == "" {
		return nil, nil
	}
	if !strings.HasPrefix(value, "@") {
		var out []item
		for _, f := range strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == '\n' || r == ';' }) {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, item{where: "--" + flag, text: f})
			}
		}
		return out, nil
	}
	path := value[1:]
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", flag, err)
	}
	defer f.Close()
	var out []item
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		first, _, _ := strings.Cut(line, ",")
		first = strings.TrimSpace(first)
		if n == 1 && !looksLikeValue(first) {
			continue // a CSV header
		}
		out = append(out, item{where: fmt.Sprintf("%s:%d", path, n), text: first})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--%s %s: %w", flag, path, err)
	}
	return out, nil
}

type item struct{ where, text string }

// looksLikeValue tells a header word (locode, imo, pol) from a value: values
// hold a digit or are upper case.
func looksLikeValue(s string) bool {
	return strings.ContainsAny(s, "0123456789") || s == strings.ToUpper(s)
}

// parseList reads list flag flag's value with parse, one item at a time,
// dropping duplicates; an error names where the item was read.
func parseList[T comparable](flag, value string, parse func(string) (T, error)) ([]T, error) {
	items, err := listItems(flag, value)
	if err != nil {
		return nil, err
	}
	var out []T
	seen := map[T]bool{}
	for _, it := range items {
		v, err := parse(it.text)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", it.where, err)
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out, nil
}

// parsePorts reads --ports: UN/LOCODEs, normalised, duplicates dropped.
func parsePorts(value string) ([]string, error) {
	return parseList("ports", value, extract.ParsePortCode)
}

// parseLanes reads --lanes: POL-POD pairs (CNSHA-NLRTM), duplicates dropped.
func parseLanes(value string) ([]jobs.Lane, error) {
	return parseList("lanes", value, parseLane)
}

func parseLane(s string) (jobs.Lane, error) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return jobs.Lane{}, fmt.Errorf("invalid lane %q: want POL-POD such as CNSHA-NLRTM", s)
	}
	pol, err := extract.ParsePortCode(a)
	if err != nil {
		return jobs.Lane{}, fmt.Errorf("lane %q: %w", s, err)
	}
	pod, err := extract.ParsePortCode(b)
	if err != nil {
		return jobs.Lane{}, fmt.Errorf("lane %q: %w", s, err)
	}
	if pol == pod {
		return jobs.Lane{}, fmt.Errorf("invalid lane %q: want two different ports", s)
	}
	return jobs.Lane{POL: pol, POD: pod}, nil
}

// parseVessels reads --vessels: IMO numbers, duplicates dropped.
func parseVessels(value string) ([]int, error) {
	return parseList("vessels", value, extract.ParseIMO)
}

// readShipments reads a shipments CSV: a header naming shipment_number and,
// optionally, shipment_type and sealine (any order, other columns
// ignored), then one shipment per row. Errors name the file and line.
func readShipments(r io.Reader, name string) ([]extract.ShipmentRef, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty file: want a header shipment_number,shipment_type,sealine", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	num, ok := col["shipment_number"]
	if !ok {
		return nil, fmt.Errorf("%s:1: header %q has no shipment_number column: want shipment_number,shipment_type,sealine", name, strings.Join(header, ","))
	}
	field := func(rec []string, c string) string {
		if i, ok := col[c]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	var out []extract.ShipmentRef
	seen := map[extract.ShipmentRef]bool{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if num >= len(rec) || strings.TrimSpace(rec[num]) == "" {
			return nil, fmt.Errorf("%s:%d: no shipment_number", name, line)
		}
		ref, err := extract.ParseShipmentRef(rec[num], field(rec, "shipment_type"), field(rec, "sealine"))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if !seen[ref] {
			seen[ref] = true
			out = append(out, ref)
		}
	}
	return out, nil
}
