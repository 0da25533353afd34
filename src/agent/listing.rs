//! The two listings agents get: the tabs that publish tools, and a tab's
//! tools and skills as far as the chat may see them.

use super::*;

impl Session {
    pub(super) fn list_tabs(&self, id: &Value, world: &World) -> Reply {
        let tabs: Vec<Value> = world
            .registry
            .tab_ids()
            .filter(|&tab| world.registry.count(tab) > 0)
            .map(|tab| {
                let info = world.tab(tab);
                let site = world.registry.frames(tab).next().map(|f| f.origin.clone());
                json!({"tabId": tab, "site": site, "title": info.map(|t| t.title.clone())})
            })
            .collect();
        let text = serde_json::to_string(&tabs).unwrap_or_default();
        reply(
            id,
            json!({"content": [{"type": "text", "text": text}], "structuredContent": {"tabs": tabs}, "isError": false}),
        )
    }

    pub(super) fn listing(
        &self,
        chat: &str,
        id: &Value,
        tab_id: TabId,
        sites: &[String],
        withheld: &[String],
        world: &World,
    ) -> Reply {
        let mut tools = Vec::new();
        let mut skills = Vec::new();
        for frame in world
            .registry
            .frames(tab_id)
            .filter(|f| sites.contains(&f.origin))
        {
            for tool in &frame.tools {
                let d = &tool.decl;
                match tool.facts(&frame.origin) {
                    None => skills.push(json!({"name": d.name, "title": d.title, "description": d.description,
                                               "instructions": d.instructions, "site": frame.origin})),
                    Some(facts) if self.answers.visible(chat, &facts) => tools.push(json!({
                        "name": d.name, "title": d.title, "description": d.description,
                        "class": facts.class.label(), "badges": tool.verdict.badges,
                        "site": frame.origin,
                        "inputSchema": d.input_schema.as_deref().and_then(|s| serde_json::from_str::<Value>(s).ok()),
                    })),
                    Some(_) => {}
                }
            }
        }
        let listing =
            json!({"tabId": tab_id, "tools": tools, "skills": skills, "withheld": withheld});
        let text = serde_json::to_string(&listing).unwrap_or_default();
        reply(
            id,
            json!({"content": [{"type": "text", "text": text}], "structuredContent": listing, "isError": false}),
        )
    }
}
