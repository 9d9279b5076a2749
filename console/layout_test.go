package console_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agencyos/workspaced/internal/tooltest"
	"github.com/agencyos/workspaced/store/storetest"
)

// membersLayout lists what is wrong with the members page's layout: an email cut off by its
// cell or box, a grant (feature=level) broken across lines, and in the Change form a label
// on another row than its control, or a control on the row of another control's label.
const membersLayout = `(() => {
	const bad = [];
	for (const el of document.querySelectorAll("#members .email")) {
		const box = el.closest(".table-wrap").getBoundingClientRect(), td = el.closest("td").getBoundingClientRect(), r = el.getBoundingClientRect();
		if (r.right > box.right + 1 || r.right > td.right + 1 || el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0) bad.push("email cut off: " + el.textContent);
	}
	for (const el of document.querySelectorAll("#members .grants code")) {
		if (el.getClientRects().length > 1) bad.push("grant broken across lines: " + el.textContent);
	}
	for (const form of document.querySelectorAll("#members form.change")) {
		form.closest("details").open = true;
		const labels = [...form.querySelectorAll("label")];
		for (const l of labels) {
			const c = document.getElementById(l.htmlFor), lr = l.getBoundingClientRect(), cr = c.getBoundingClientRect();
			if (Math.abs((lr.top + lr.bottom) / 2 - (cr.top + cr.bottom) / 2) > cr.height / 2) bad.push("label apart from its control: " + l.textContent);
			for (const other of labels) {
				if (other === l) continue;
				const or = other.getBoundingClientRect();
				if (cr.right > or.left && cr.left < or.right && cr.bottom > or.top && cr.top < or.bottom) bad.push(c.id + " beside the label " + other.textContent);
			}
		}
	}
	return bad;
})()`

// TestMembersPageLayout drives Chromium at 1280 and 390 px: a long email is not cut off,
// grants such as metrics=read stay on one line, and each of the Change form's selects sits
// beside its own label only.
func TestMembersPageLayout(t *testing.T) {
	tooltest.Require(t, "headless Chromium")
	e := newEnv(t)
	long := e.addUser(e.WorkspaceID, "member", "active", map[string]string{"crm": "full", "hr": "read", "finance": "read", "metrics": "read", "competitors": "full", "agents": "read"})
	if _, err := storetest.Pool(t).Exec(t.Context(), `UPDATE users SET email = 'a.very.long.address.for.testing.' || id || '@subsidiary.example.com' WHERE id = $1`, long.ID); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	browserSignIn(t, ctx, e.srv.URL, e.Admin)
	for _, width := range []int64{1280, 390} {
		run(t, ctx, "members", chromedp.EmulateViewport(width, 900), chromedp.Navigate(e.srv.URL+"/console/members"),
			chromedp.WaitVisible(chromedp.CSS("#members")))
		bad, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](membersLayout))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bad {
			t.Errorf("at %d px: %s", width, b)
		}
	}
}
