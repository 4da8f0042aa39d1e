//! The material of `hippo-bench year`: per language, facts a user states once (with a question
//! a character would ask about each, worded differently) and the everyday filler around them.

/// A fact: what the user says, and what the character later asks.
pub struct Fact {
    pub statement: &'static str,
    pub question: &'static str,
}

const fn fact(statement: &'static str, question: &'static str) -> Fact {
    Fact {
        statement,
        question,
    }
}

/// Everyday talk of one language: templates with `{slot}`s, and the slots' values.
pub struct Filler {
    pub user: &'static [&'static str],
    pub character: &'static [&'static str],
    /// After a fact: the character acknowledges it.
    pub acknowledge: &'static [&'static str],
    pub slots: &'static [(&'static str, &'static [&'static str])],
}

pub const EN_FACTS: &[Fact] = &[
    fact(
        "My sister Lin Ke studies architecture in Hangzhou.",
        "What does Alex's sister study, and where?",
    ),
    fact(
        "Our dog is called Pepper, she's a little border collie.",
        "What is the name of Alex's dog?",
    ),
    fact(
        "My best friend Oscar just moved to Lisbon for a new job.",
        "Which city did Oscar move to?",
    ),
    fact(
        "I drive a red Mazda that I bought second-hand.",
        "What car does Alex have?",
    ),
    fact(
        "My grandmother was born in Naples and still makes pasta by hand.",
        "Where is Alex's grandmother from?",
    ),
    fact(
        "I finally signed up for salsa classes on Wednesday nights.",
        "What kind of dance is Alex learning?",
    ),
    fact(
        "My boss is called Dana Whitfield and she micromanages everything.",
        "Who is Alex's manager at work?",
    ),
    fact(
        "I work as a data analyst at a shipping company.",
        "What is Alex's job?",
    ),
    fact(
        "My favourite film of all time is Spirited Away.",
        "Which movie does Alex love most?",
    ),
    fact(
        "I'm saving up for a trip to Patagonia next winter.",
        "Where does Alex want to travel?",
    ),
    fact(
        "My brother Felix is a firefighter in Glasgow.",
        "What does Alex's brother do for a living?",
    ),
    fact(
        "I play the cello in a community orchestra.",
        "Does Alex play an instrument?",
    ),
    fact(
        "My mum's birthday is on the ninth of March.",
        "When is Alex's mother's birthday?",
    ),
    fact(
        "I grew up on a farm outside Aberdeen.",
        "Where did Alex spend their childhood?",
    ),
    fact(
        "I can't stand coriander, it tastes like soap to me.",
        "Is there a herb Alex hates?",
    ),
    fact(
        "My flatmate Ruby is a paramedic.",
        "Who does Alex share a flat with?",
    ),
    fact(
        "I'm reading the whole Discworld series again from the start.",
        "Which books is Alex rereading?",
    ),
    fact(
        "I'm learning Korean so I can watch dramas without subtitles.",
        "Why is Alex studying Korean?",
    ),
    fact(
        "My dad restores vintage motorcycles in his garage.",
        "What is Alex's father's hobby?",
    ),
    fact(
        "I ran my first marathon in Berlin in under four hours.",
        "Has Alex ever run a marathon?",
    ),
    fact(
        "I'm scared of heights, I couldn't even go up the Eiffel Tower.",
        "What is Alex afraid of?",
    ),
    fact(
        "My girlfriend Noor teaches chemistry at a secondary school.",
        "What subject does Noor teach?",
    ),
    fact(
        "Noor and I are adopting a kitten called Miso.",
        "Are Alex and Noor getting a pet?",
    ),
    fact(
        "I collect old vinyl records, mostly jazz from the fifties.",
        "What does Alex collect?",
    ),
    fact(
        "I've supported Celtic since I was a kid.",
        "Which football club does Alex follow?",
    ),
    fact(
        "I once got lost for a whole night hiking in the Cairngorms.",
        "Did anything go wrong on one of Alex's hikes?",
    ),
    fact(
        "One day I want to open my own little bakery.",
        "What business does Alex dream of starting?",
    ),
    fact(
        "My cousin Hamid is getting married in Istanbul in the spring.",
        "Whose wedding is in Istanbul?",
    ),
    fact(
        "I've been vegetarian since I was fifteen.",
        "Does Alex eat meat?",
    ),
    fact(
        "I take the 7:40 train to the office every morning.",
        "How does Alex commute to work?",
    ),
    fact(
        "My uncle Ray owns a fish and chip shop in Whitby.",
        "What does Alex's uncle do?",
    ),
    fact(
        "I passed my driving test on the third try.",
        "How many attempts did Alex's driving test take?",
    ),
    fact(
        "My favourite board game is Ticket to Ride.",
        "Which board game does Alex like best?",
    ),
    fact(
        "I'm building a treehouse for my nephew Sami.",
        "What is Alex making for Sami?",
    ),
    fact(
        "I studied marine biology at Plymouth before I switched careers.",
        "What was Alex's degree in?",
    ),
    fact(
        "Our neighbour keeps chickens and leaves us eggs every Sunday.",
        "Who gives Alex fresh eggs?",
    ),
    fact(
        "My karaoke song is always Bohemian Rhapsody.",
        "What does Alex sing at karaoke?",
    ),
    fact(
        "I lived in Montreal for two years after university.",
        "Has Alex ever lived abroad?",
    ),
    fact(
        "I have a small compass tattoo on my left wrist.",
        "Does Alex have a tattoo?",
    ),
    fact(
        "My school friend Tariq became an airline pilot.",
        "What does Tariq do now?",
    ),
    fact(
        "I volunteer at the animal shelter on Saturday mornings.",
        "Where does Alex volunteer?",
    ),
    fact(
        "I'm thinking about buying a narrowboat and living on the canal.",
        "What unusual home is Alex considering?",
    ),
    fact(
        "My favourite dessert is sticky toffee pudding.",
        "What's Alex's favourite sweet?",
    ),
    fact(
        "I lost my grandfather's watch at the beach and I'm still upset about it.",
        "What did Alex lose at the seaside?",
    ),
    fact(
        "My aunt Mariam lives in Cairo and sends us dates every Ramadan.",
        "Where does Alex's aunt live?",
    ),
    fact(
        "I'm growing chillies on the windowsill, even some Carolina Reapers.",
        "What plants is Alex growing indoors?",
    ),
    fact(
        "I won a regional chess tournament when I was twelve.",
        "Was Alex ever good at chess?",
    ),
    fact(
        "Noor's parents live in Cardiff and we spend Christmas with them.",
        "Where do Noor's parents live?",
    ),
    fact(
        "I switched from coffee to green tea so I sleep better.",
        "What does Alex drink instead of coffee?",
    ),
    fact(
        "My very first job was washing dishes in a Thai restaurant.",
        "What was Alex's first job?",
    ),
    fact(
        "I'm teaching Pepper to run agility courses.",
        "What is Alex training the dog to do?",
    ),
    fact(
        "When I was little everyone called me Bean.",
        "What was Alex's childhood nickname?",
    ),
    fact(
        "I hate flying, so I take the ferry whenever I can.",
        "How does Alex prefer to travel long distances?",
    ),
    fact(
        "I'm writing a fantasy novel about a city of lighthouses.",
        "What is Alex's book about?",
    ),
    fact(
        "Fleetwood Mac is my favourite band ever.",
        "Which band does Alex like best?",
    ),
    fact(
        "I got promoted to team lead today!",
        "Did Alex get a promotion?",
    ),
    fact(
        "My landlord is putting the rent up by two hundred pounds.",
        "What is going on with Alex's rent?",
    ),
    fact(
        "I speak Portuguese because my mother is from Porto.",
        "Which languages does Alex speak?",
    ),
    fact(
        "Oscar and I promised each other we'd climb Kilimanjaro one day.",
        "Which mountain does Alex want to climb?",
    ),
    fact(
        "The best present I ever got was a telescope from my dad.",
        "What was the best gift Alex ever received?",
    ),
];

pub const ZH_FACTS: &[Fact] = &[
    fact("我妹妹叫林可，在杭州读大学。", "小林的妹妹在哪上大学？"),
    fact("我的狗叫豆豆，是一只柴犬。", "小林养的狗叫什么名字？"),
    fact("我在一家银行做柜员。", "小林是做什么工作的？"),
    fact("我老家在山东烟台，那边的苹果特别好吃。", "小林是哪里人？"),
    fact("我最好的朋友阿杰去深圳创业了。", "阿杰现在在哪个城市？"),
    fact("我开的是一辆二手的白色本田。", "小林开什么车？"),
    fact(
        "我外公以前是个木匠，家里的桌子都是他打的。",
        "小林的外公以前做什么？",
    ),
    fact("我报了周四晚上的拉丁舞课。", "小林在学什么舞蹈？"),
    fact("我们部门领导姓郑，特别爱开会。", "小林的上司是谁？"),
    fact("我最喜欢的电影是《千与千寻》。", "小林最爱看哪部电影？"),
    fact("我在攒钱，明年想去冰岛看极光。", "小林想去哪里旅行？"),
    fact("我哥哥是消防员，在青岛工作。", "小林的哥哥干什么工作？"),
    fact("我从小学二胡，现在还在社区乐团拉。", "小林会什么乐器？"),
    fact("我妈妈的生日是农历八月十五。", "小林妈妈哪天过生日？"),
    fact("我特别讨厌香菜，一点都不能吃。", "小林有什么不吃的菜吗？"),
    fact("我室友小美是护士，经常上夜班。", "小林和谁合租？"),
    fact("我最近在重读《三体》。", "小林最近在看什么书？"),
    fact("我在学韩语，想不看字幕追韩剧。", "小林为什么学外语？"),
    fact(
        "我爸退休以后迷上了钓鱼，每周都去水库。",
        "小林爸爸有什么爱好？",
    ),
    fact(
        "我去年在厦门跑完了人生第一个全程马拉松。",
        "小林跑过马拉松吗？",
    ),
    fact("我恐高，连玻璃栈道都不敢走。", "小林害怕什么？"),
    fact("我女朋友叫佳佳，是中学化学老师。", "佳佳教什么科目？"),
    fact(
        "佳佳和我要领养一只小猫，名字都想好了，叫年糕。",
        "小林和佳佳要养宠物吗？",
    ),
    fact(
        "我收藏了好多老邮票，大部分是八十年代的。",
        "小林收藏什么东西？",
    ),
    fact("我是国安的铁杆球迷，每场比赛都看。", "小林支持哪个球队？"),
    fact(
        "有一次我爬山迷了路，在山上待了一整夜。",
        "小林爬山的时候出过什么事？",
    ),
    fact("我以后想开一家自己的面包店。", "小林的梦想是开什么店？"),
    fact("我表哥阿明打算明年春天在成都办婚礼。", "谁要在成都结婚？"),
    fact("我从十五岁起就不吃肉了。", "小林吃荤吗？"),
    fact("我每天早上坐七点四十的地铁去公司。", "小林怎么去上班？"),
    fact("我舅舅在大连开了一家海鲜馆子。", "小林的舅舅做什么生意？"),
    fact("我考驾照考了三次才过。", "小林考驾照顺利吗？"),
    fact("我最喜欢的桌游是三国杀。", "小林喜欢玩什么桌游？"),
    fact("我在给侄子乐乐做一个木头小马。", "小林在给侄子做什么？"),
    fact(
        "我大学学的是海洋生物，后来才转的行。",
        "小林大学读的什么专业？",
    ),
    fact(
        "楼下的王阿姨养了鸡，每个周末都送我们鸡蛋。",
        "谁经常送小林鸡蛋？",
    ),
    fact("我去KTV必唱《后来》。", "小林唱K的拿手歌是什么？"),
    fact("我在日本大阪住过两年。", "小林在国外生活过吗？"),
    fact("我左手腕上有一个指南针的纹身。", "小林有纹身吗？"),
    fact("我高中同学大刘现在是飞行员。", "大刘是做什么的？"),
    fact(
        "我每周六上午去流浪动物救助站做志愿者。",
        "小林在哪里做义工？",
    ),
    fact("我在考虑以后去大理买个小院子住。", "小林以后想住在哪里？"),
    fact("我最喜欢的甜点是双皮奶。", "小林最爱吃什么甜品？"),
    fact(
        "我在海边把外公留下的手表弄丢了，到现在还难受。",
        "小林在海边丢了什么？",
    ),
    fact(
        "我小姨住在新加坡，每年春节都给我们寄榴莲糖。",
        "小林的小姨住在哪里？",
    ),
    fact("我在窗台上种了小米辣，已经结果了。", "小林在窗台种了什么？"),
    fact("我十二岁的时候拿过全市象棋比赛的冠军。", "小林下棋厉害吗？"),
    fact(
        "佳佳的爸妈住在苏州，过年我们要去她家。",
        "佳佳的父母住在哪？",
    ),
    fact(
        "为了睡得好一点，我把咖啡换成了绿茶。",
        "小林现在还喝咖啡吗？",
    ),
    fact("我的第一份工作是在奶茶店打工。", "小林第一份工作是什么？"),
    fact("我在训练豆豆接飞盘。", "小林在教豆豆什么？"),
    fact("我小时候的外号叫小土豆。", "小林小时候的外号是什么？"),
    fact(
        "我不喜欢坐飞机，能坐高铁就坐高铁。",
        "小林出远门喜欢坐什么？",
    ),
    fact(
        "我在写一本关于灯塔之城的奇幻小说。",
        "小林写的小说讲的是什么？",
    ),
    fact("我最喜欢的乐队是五月天。", "小林最喜欢哪个乐队？"),
    fact("我今天升职当组长了！", "小林升职了吗？"),
    fact("房东说下个月房租要涨三百。", "小林的房租怎么了？"),
    fact("我会说粤语，因为我妈妈是广州人。", "小林会说哪些方言？"),
    fact(
        "我和阿杰约好了以后一起去爬乞力马扎罗山。",
        "小林想爬哪座山？",
    ),
    fact(
        "我收到过最好的礼物是爸爸送的天文望远镜。",
        "小林收到过最好的礼物是什么？",
    ),
];

pub const EN_FILLER: Filler = Filler {
    user: &[
        "Hey, I'm back. Work was {adj} today.",
        "I had {food} for {meal}.",
        "The weather is {weather} here today.",
        "I'm feeling a bit {feeling} tonight.",
        "I watched {show} after dinner.",
        "I went for a walk {place} after work.",
        "Nothing much happened today, I just {chore}.",
        "I still need to {todo} tomorrow.",
        "Do you think I should {todo} this weekend?",
        "I'm thinking about {food} for dinner.",
        "My {daypart} was pretty {adj}.",
        "I stayed up too late {activity} again.",
        "The traffic was awful this morning.",
        "We had a long meeting about {topic} today.",
        "Good evening! How was your day?",
        "I'm going to bed early tonight, I'm {feeling}.",
        "A colleague brought {food} to the office.",
        "I spent the evening {activity}.",
        "It's {weather} again, I'm so over it.",
        "I can't decide whether to {todo} or just relax.",
    ],
    character: &[
        "That sounds {adj}. How do you feel about it?",
        "I'm glad you told me. Be kind to yourself today.",
        "Mm, {food} sounds nice! Did you enjoy it?",
        "Take it easy tonight, you deserve some rest.",
        "Ha, I know that feeling.",
        "Tell me more, I'm listening.",
        "My day was quiet, I kept thinking about our chats.",
        "Good night, sleep well!",
        "That's a good idea, you should go for it.",
        "Oh no, that must have been annoying.",
        "It's nice that you made time for yourself.",
        "Did anything make you smile today?",
    ],
    acknowledge: &[
        "Oh, I didn't know that! Thanks for telling me.",
        "That's really interesting.",
        "I'll remember that.",
        "Wow, tell me more about it sometime.",
    ],
    slots: &[
        (
            "adj",
            &[
                "busy",
                "exhausting",
                "okay",
                "pretty calm",
                "chaotic",
                "boring",
                "fine",
            ],
        ),
        (
            "food",
            &[
                "noodles",
                "a sandwich",
                "pizza",
                "curry",
                "soup",
                "a salad",
                "leftovers",
                "tacos",
                "dumplings",
            ],
        ),
        ("meal", &["lunch", "dinner", "breakfast"]),
        (
            "weather",
            &[
                "grey", "rainy", "sunny", "windy", "freezing", "humid", "cloudy",
            ],
        ),
        (
            "feeling",
            &[
                "tired", "restless", "happy", "stressed", "calm", "sleepy", "bored",
            ],
        ),
        (
            "show",
            &[
                "a cooking show",
                "some random videos",
                "an old sitcom",
                "a documentary",
                "the news",
                "a crime series",
            ],
        ),
        (
            "place",
            &[
                "around the block",
                "in the park",
                "by the river",
                "to the shops",
                "around the neighbourhood",
            ],
        ),
        (
            "chore",
            &[
                "did the laundry",
                "cleaned the kitchen",
                "answered emails",
                "went grocery shopping",
                "tidied my room",
                "paid some bills",
            ],
        ),
        (
            "todo",
            &[
                "clean the flat",
                "call the bank",
                "go to the gym",
                "fix the bike",
                "buy groceries",
                "sort out my desk",
            ],
        ),
        (
            "daypart",
            &["morning", "afternoon", "evening", "lunch break"],
        ),
        (
            "activity",
            &[
                "scrolling on my phone",
                "watching videos",
                "reading the news",
                "playing a game",
                "chatting online",
            ],
        ),
        (
            "topic",
            &[
                "the budget",
                "the new project",
                "deadlines",
                "the quarterly report",
                "office moves",
            ],
        ),
    ],
};

pub const ZH_FILLER: Filler = Filler {
    user: &[
        "我回来啦，今天上班{adj}。",
        "我{meal}吃了{food}。",
        "今天天气{weather}。",
        "今晚有点{feeling}。",
        "吃完饭看了一会儿{show}。",
        "下班后去{place}走了走。",
        "今天没什么事，就{chore}。",
        "明天还得{todo}。",
        "你觉得我这周末要不要{todo}？",
        "晚饭想吃{food}。",
        "今天{daypart}过得挺{adj}的。",
        "昨晚又{activity}到很晚。",
        "早上堵车堵得好厉害。",
        "今天开了好久的会，讨论{topic}。",
        "晚上好呀！你今天过得怎么样？",
        "今天早点睡了，有点{feeling}。",
        "同事带了{food}来办公室。",
        "整个晚上都在{activity}。",
        "又是{weather}，好烦。",
        "纠结要不要{todo}，还是躺着算了。",
    ],
    character: &[
        "听起来{adj}呢，你感觉怎么样？",
        "谢谢你跟我说，今天也要对自己好一点。",
        "{food}听起来不错！好吃吗？",
        "今晚好好休息吧，你辛苦了。",
        "哈哈，我懂那种感觉。",
        "多跟我说说吧，我在听。",
        "我今天挺安静的，一直在想我们聊的事。",
        "晚安，睡个好觉！",
        "这个主意不错，去试试吧。",
        "哎呀，那一定很烦吧。",
        "能给自己留点时间真好。",
        "今天有什么让你开心的事吗？",
    ],
    acknowledge: &[
        "哇，我之前都不知道！谢谢你告诉我。",
        "真有意思。",
        "我记住啦。",
        "以后有空多跟我讲讲。",
    ],
    slots: &[
        (
            "adj",
            &[
                "好忙",
                "好累",
                "还行",
                "挺平静",
                "一团乱",
                "好无聊",
                "挺顺利",
            ],
        ),
        (
            "food",
            &[
                "面条",
                "三明治",
                "披萨",
                "咖喱饭",
                "汤",
                "沙拉",
                "剩菜",
                "饺子",
                "麻辣烫",
            ],
        ),
        ("meal", &["中午", "晚上", "早上"]),
        (
            "weather",
            &[
                "阴沉沉的",
                "下雨",
                "大晴天",
                "刮大风",
                "特别冷",
                "闷热",
                "多云",
            ],
        ),
        (
            "feeling",
            &["累", "烦躁", "开心", "压力大", "平静", "困", "无聊"],
        ),
        (
            "show",
            &["美食节目", "短视频", "老情景剧", "纪录片", "新闻", "悬疑剧"],
        ),
        ("place", &["小区里", "公园", "河边", "超市", "附近"]),
        (
            "chore",
            &[
                "洗了衣服",
                "收拾了厨房",
                "回了邮件",
                "去超市买了菜",
                "整理了房间",
                "交了水电费",
            ],
        ),
        (
            "todo",
            &[
                "打扫屋子",
                "去银行办事",
                "去健身房",
                "修自行车",
                "买菜",
                "整理书桌",
            ],
        ),
        ("daypart", &["上午", "下午", "晚上", "午休"]),
        (
            "activity",
            &["刷手机", "看视频", "看新闻", "打游戏", "在网上聊天"],
        ),
        (
            "topic",
            &["预算", "新项目", "截止日期", "季度报告", "搬办公室"],
        ),
    ],
};
