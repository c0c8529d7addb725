package autodiff

import (
	"os"
	"testing"

	"github.com/qrc-lang/qrc/internal/shareddata"
)

func TestMain(m *testing.M) { os.Exit(shareddata.Main(m)) }
