package tooltest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// ChromiumPath finds the browser: $CHROMIUM, else Debian's /usr/bin/chromium. It fails
// tb when there is none.
func ChromiumPath(tb testing.TB) string {
	tb.Helper()
	for _, p := range []string{os.Getenv("CHROMIUM"), "/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p == "" {
			continue
		}
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	tb.Fatal("headless Chromium is required for this test and was not found: install it (apt-get install -y chromium) " +
		"or set CHROMIUM to the browser's path")
	return ""
}

// Chromium starts headless Chromium with its own profile, as the console's browser tests
// do, and returns a context for its first tab, cancelled when tb ends or after timeout;
// extra adds flags. It skips like Require.
func Chromium(tb testing.TB, timeout time.Duration, extra ...chromedp.ExecAllocatorOption) context.Context {
	tb.Helper()
	Require(tb, "headless Chromium")
	opts := append([]chromedp.ExecAllocatorOption{
		chromedp.ExecPath(ChromiumPath(tb)),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(tb.TempDir()),
	}, extra...)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	tb.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	return ctx
}
