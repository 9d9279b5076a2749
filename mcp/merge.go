package mcp

import (
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agencyos/workspaced/workspace"
)

// toolsetMerge holds merge_people and merge_companies: a toolset of its own, outside the
// default one, whose tools/list budget (docs/mcp.md) they would exceed; find_tools and
// call_tool reach them from every view, as every tool.
const toolsetMerge = "merge"

// mergeTool is merge_<resource> for a Mergeable resource: POST /<resource>/{id}/merge,
// run by workspace.Ops.Merge with an update's gates.
func mergeTool(r *workspace.Resource) toolSpec {
	props := map[string]*jsonschema.Schema{
		"id":   workspace.UUID.Schema(workspace.ToolDialect),
		"from": workspace.UUID.Schema(workspace.ToolDialect),
	}
	desc := fmt.Sprintf("Merge the duplicate %s record from into the record id, which is kept: references move to it, "+
		"its blank fields are filled, from is marked merged_into_id.", human(r.Name))
	return toolSpec{op: workspace.OpUpdate, merge: true, resource: r, scope: r.WriteScope(), toolset: toolsetMerge,
		tool: newTool("merge_"+r.Name, desc, input(props, "id", "from"), typed("object"), hints(false, false, false))}
}
