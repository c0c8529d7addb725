package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// A oneHot is a categorical attribute written as one 0/1 column per level.
type oneHot struct {
	prefix string
	levels []string
}

func (o oneHot) columns() []string {
	cols := make([]string, len(o.levels))
	for i, l := range o.levels {
		cols[i] = o.prefix + "_" + l
	}
	return cols
}

// The columns of ../shared/data/adult.csv, in its order.
var (
	adultNumeric   = []string{"age", "education_num", "capital_gain", "capital_loss", "hours_per_week"}
	adultWorkclass = oneHot{"workclass", strings.Fields("federal_gov local_gov private self_emp_inc self_emp_not_inc state_gov")}
	adultMarital   = oneHot{"marital_status", strings.Fields("divorced married_civ_spouse married_spouse_absent never_married separated widowed")}
	adultOccup     = oneHot{"occupation", strings.Fields("adm_clerical craft_repair exec_managerial farming_fishing handlers_cleaners machine_op_inspct other_service priv_house_serv prof_specialty protective_serv sales tech_support transport_moving")}
	adultRelation  = oneHot{"relationship", strings.Fields("husband not_in_family other_relative own_child unmarried wife")}
	adultCountry   = oneHot{"native_country", strings.Fields("canada china columbia cuba dominican_republic el_salvador england germany guatemala india italy jamaica japan mexico philippines poland puerto_rico south united_states vietnam")}
	adultHots      = []oneHot{adultWorkclass, adultMarital, adultOccup, adultRelation, adultCountry}
)

// adultRows is the number of rows of the adult.csv stand-in.
const adultRows = 1000

// writeAdult writes adult.csv, a stand-in for ../shared/data/adult.csv
// with its 59 columns in its order: five standardised numerics, one-hot
// workclass, marital status, occupation, relationship and native country,
// the group columns male and white, and the label income in {-1, 1}. Men
// have longer hours and are more often married; the label is a noisy
// logistic-style rule in the numerics, marriage, two occupations and a
// direct bonus for men, so that the positive rate is 0.33 for men and
// 0.14 for women (0.31 and 0.11 in the real data).
func writeAdult(w io.Writer) error {
	r := rand.New(rand.NewPCG(0x5EED_AD17, 4))
	bw := bufio.NewWriter(w)
	header := append([]string{}, adultNumeric...)
	for _, h := range adultHots {
		header = append(header, h.columns()...)
	}
	header = append(header, "male", "white", "income")
	bw.WriteString(strings.Join(header, ",") + "\n")
	for range adultRows {
		male := r.Float64() < 0.675
		white := r.Float64() < 0.86
		num := make([]float64, len(adultNumeric))
		for j := range num {
			num[j] = r.NormFloat64()
		}
		if male {
			num[4] += 0.4 // hours per week
		}
		num[2] = math.Max(num[2], -0.3) // capital gain: mostly at its floor
		num[3] = math.Max(num[3], -0.22)
		pick := func(o oneHot, weights []float64) int {
			u, s := r.Float64()*sum(weights), 0.0
			for k, wk := range weights {
				if s += wk; u < s {
					return k
				}
			}
			return len(o.levels) - 1
		}
		work := pick(adultWorkclass, []float64{3, 7, 74, 4, 8, 4})
		married := r.Float64() < map[bool]float64{true: 0.62, false: 0.15}[male]
		marital := 3 // never married
		switch {
		case married:
			marital = 1
		case r.Float64() < 0.4:
			marital = pick(adultMarital, []float64{14, 0, 1, 0, 3, 3})
		}
		occup := pick(adultOccup, []float64{12, 13, 13, 3, 4, 7, 11, 1, 13, 2, 12, 3, 5})
		rel := pick(adultRelation, []float64{0, 26, 3, 15, 11, 0})
		if married {
			rel = map[bool]int{true: 0, false: 5}[male] // husband, wife
		}
		country := len(adultCountry.levels) - 2 // united_states
		if r.Float64() < 0.09 {
			country = r.IntN(len(adultCountry.levels))
		}
		score := -2.3 + 0.5*num[0] + 0.9*num[1] + 0.8*num[2] + 0.2*num[3] + 0.4*num[4] + 0.8*r.NormFloat64()
		if married {
			score += 1.2
		}
		if occup == 2 || occup == 8 { // exec_managerial, prof_specialty
			score += 0.7
		}
		if male {
			score += 0.3
		}
		for _, v := range num {
			bw.WriteString(fixed4(v) + ",")
		}
		for _, h := range []struct {
			o     oneHot
			level int
		}{{adultWorkclass, work}, {adultMarital, marital}, {adultOccup, occup}, {adultRelation, rel}, {adultCountry, country}} {
			for l := range h.o.levels {
				bw.WriteString(bit(l == h.level) + ",")
			}
		}
		fmt.Fprintf(bw, "%s,%s,%s\n", bit(male), bit(white), sign(score > 0))
	}
	return bw.Flush()
}

// The columns of ../shared/data/german.csv, in its order.
var (
	germanLead = []string{"month", "credit_amount", "investment_as_income_percentage", "sex", "residence_since", "age", "number_of_credits", "people_liable_for"}
	germanHots = []oneHot{
		{"status", strings.Fields("a11 a12 a13 a14")},
		{"credit_history", strings.Fields("a30 a31 a32 a33 a34")},
		{"purpose", strings.Fields("a40 a41 a410 a42 a43 a44 a45 a46 a48 a49")},
		{"savings", strings.Fields("a61 a62 a63 a64 a65")},
		{"employment", strings.Fields("a71 a72 a73 a74 a75")},
		{"other_debtors", strings.Fields("a101 a102 a103")},
		{"property", strings.Fields("a121 a122 a123 a124")},
		{"installment_plans", strings.Fields("a141 a142 a143")},
		{"housing", strings.Fields("a151 a152 a153")},
		{"skill_level", strings.Fields("a171 a172 a173 a174")},
		{"telephone", strings.Fields("a191 a192")},
		{"foreign_worker", strings.Fields("a201 a202")},
	}
)

// germanRows is the number of rows of the german.csv stand-in (the real
// set has 1000).
const germanRows = 1000

// writeGerman writes german.csv, a stand-in for ../shared/data/german.csv
// with its 59 columns in its order: six standardised numerics with the
// binary group columns sex (0.69 ones) and age (0.85 ones) among them as
// in the real file, twelve one-hot attributes drawn uniformly, and the
// label good in {-1, 1}: a noisy rule in the duration, the amount, the
// account status and the credit history, with a bonus for sex = 1 and
// age = 1, so that 0.72 of the rows are good (0.67 for sex = 0, 0.74 for
// sex = 1; 0.65 and 0.72 in the real data).
func writeGerman(w io.Writer) error {
	r := rand.New(rand.NewPCG(0x5EED_6E12, 5))
	bw := bufio.NewWriter(w)
	header := append([]string{}, germanLead...)
	for _, h := range germanHots {
		header = append(header, h.columns()...)
	}
	header = append(header, "good")
	bw.WriteString(strings.Join(header, ",") + "\n")
	for range germanRows {
		sex := r.Float64() < 0.69
		age := r.Float64() < 0.85
		lead := make([]string, len(germanLead))
		var month, amount float64
		for j, name := range germanLead {
			switch name {
			case "sex":
				lead[j] = bit(sex)
			case "age":
				lead[j] = bit(age)
			default:
				v := r.NormFloat64()
				switch name {
				case "month":
					month = v
				case "credit_amount":
					amount = v
				}
				lead[j] = fixed4(v)
			}
		}
		levels := make([]int, len(germanHots))
		for k, h := range germanHots {
			levels[k] = r.IntN(len(h.levels))
		}
		score := 0.35 - 0.5*month - 0.2*amount + 0.5*r.NormFloat64()
		score += []float64{-0.8, -0.3, 0.3, 0.9}[levels[0]] // status
		score += []float64{-0.6, -0.5, 0, 0.1, 0.5}[levels[1]]
		if sex {
			score += 0.15
		}
		if age {
			score += 0.2
		}
		bw.WriteString(strings.Join(lead, ","))
		for k, h := range germanHots {
			for l := range h.levels {
				bw.WriteString("," + bit(l == levels[k]))
			}
		}
		bw.WriteString("," + sign(score > 0) + "\n")
	}
	return bw.Flush()
}

// a9aGroups are the sizes of the 14 one-hot groups of the a9a.svm stand-in
// (features 1..123, consecutive); every row has one feature per group.
var a9aGroups = []int{9, 16, 7, 15, 6, 5, 2, 2, 12, 8, 9, 13, 2, 17}

// a9aRows is the number of rows of the a9a.svm stand-in.
const a9aRows = 2000

// writeA9a writes a9a.svm, a stand-in for ../shared/data/a9a.t: LIBSVM,
// 123 binary features in 14 one-hot groups, every row with exactly 14
// ones (feature 123 never occurs, as in the real test split), labels ±1
// with 0.22 positive (0.24 in the real file): the sign of a weighted sum of the active
// features (weights standard normal, fixed by the seed) plus noise.
func writeA9a(w io.Writer) error {
	r := rand.New(rand.NewPCG(0x5EED_A9A7, 6))
	weight := make([]float64, 123)
	for j := range weight {
		weight[j] = r.NormFloat64()
	}
	bw := bufio.NewWriter(w)
	for range a9aRows {
		idx := make([]int, 0, len(a9aGroups))
		start, score := 0, -0.3
		for _, size := range a9aGroups {
			k := start + r.IntN(size)
			if k == 122 { // feature 123 never occurs
				k = 121
			}
			idx = append(idx, k+1)
			score += weight[k] * 0.6
			start += size
		}
		score += 0.7 * r.NormFloat64()
		bw.WriteString(sign(score > 0))
		for _, k := range idx {
			bw.WriteString(" " + strconv.Itoa(k) + ":1")
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

// bit writes a boolean as 1 or 0.
func bit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// sign writes a boolean label as 1 or -1.
func sign(b bool) string {
	if b {
		return "1"
	}
	return "-1"
}
