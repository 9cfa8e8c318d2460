/// Word lists the demo corpus is generated from. Titles combine an optional qualifier with a
/// dish; about one dish in four is Japanese, written in Japanese, so the CJK search path is
/// exercised by the local stack and the tests.
enum CorpusVocabulary {
    struct Dish {
        var name: String
        var category: String
        var ingredients: [String]
    }

    static let dishes: [Dish] = [
        Dish(name: "Curry Rice", category: "main", ingredients: ["rice", "curry roux", "potato", "carrot", "onion"]),
        Dish(name: "Chicken Curry", category: "main", ingredients: ["chicken", "curry powder", "onion", "tomato", "yogurt"]),
        Dish(name: "Tomato Pasta", category: "main", ingredients: ["pasta", "tomato", "garlic", "olive oil", "basil"]),
        Dish(name: "Beef Stew", category: "main", ingredients: ["beef", "potato", "carrot", "red wine", "onion"]),
        Dish(name: "Fried Rice", category: "main", ingredients: ["rice", "egg", "spring onion", "soy sauce", "ham"]),
        Dish(name: "Ginger Pork", category: "main", ingredients: ["pork", "ginger", "soy sauce", "mirin", "cabbage"]),
        Dish(name: "Salmon Teriyaki", category: "main", ingredients: ["salmon", "soy sauce", "mirin", "sugar", "sake"]),
        Dish(name: "Mushroom Risotto", category: "main", ingredients: ["rice", "mushroom", "parmesan", "butter", "onion"]),
        Dish(name: "Miso Soup", category: "soup", ingredients: ["miso", "tofu", "wakame", "dashi", "spring onion"]),
        Dish(name: "Pumpkin Soup", category: "soup", ingredients: ["pumpkin", "milk", "onion", "butter", "cream"]),
        Dish(name: "Minestrone", category: "soup", ingredients: ["tomato", "carrot", "celery", "beans", "pasta"]),
        Dish(name: "Caesar Salad", category: "salad", ingredients: ["lettuce", "parmesan", "croutons", "egg", "anchovy"]),
        Dish(name: "Potato Salad", category: "salad", ingredients: ["potato", "mayonnaise", "cucumber", "egg", "ham"]),
        Dish(name: "Pancakes", category: "breakfast", ingredients: ["flour", "milk", "egg", "sugar", "butter"]),
        Dish(name: "French Toast", category: "breakfast", ingredients: ["bread", "egg", "milk", "sugar", "cinnamon"]),
        Dish(name: "Chocolate Cake", category: "dessert", ingredients: ["chocolate", "flour", "egg", "sugar", "butter"]),
        Dish(name: "Cheesecake", category: "dessert", ingredients: ["cream cheese", "sugar", "egg", "biscuits", "lemon"]),
        Dish(name: "Apple Pie", category: "dessert", ingredients: ["apple", "flour", "butter", "sugar", "cinnamon"]),
        Dish(name: "Banana Bread", category: "dessert", ingredients: ["banana", "flour", "egg", "sugar", "walnut"]),
        Dish(name: "Gyoza", category: "side", ingredients: ["pork", "cabbage", "garlic", "ginger", "gyoza wrappers"]),
        Dish(name: "Garlic Bread", category: "side", ingredients: ["bread", "garlic", "butter", "parsley"]),
        Dish(name: "Matcha Latte", category: "drink", ingredients: ["matcha", "milk", "sugar"]),
        Dish(name: "Lemonade", category: "drink", ingredients: ["lemon", "sugar", "water", "mint"]),
        Dish(name: "Onigiri", category: "snack", ingredients: ["rice", "nori", "salmon", "salt"]),
        // Japanese titles.
        Dish(name: "カレーライス", category: "main", ingredients: ["rice", "curry roux", "potato", "carrot", "onion"]),
        Dish(name: "ビーフカレー", category: "main", ingredients: ["beef", "curry roux", "onion", "rice"]),
        Dish(name: "カレーうどん", category: "main", ingredients: ["udon", "curry roux", "dashi", "spring onion"]),
        Dish(name: "肉じゃが", category: "main", ingredients: ["beef", "potato", "onion", "soy sauce", "mirin"]),
        Dish(name: "親子丼", category: "main", ingredients: ["chicken", "egg", "rice", "onion", "dashi"]),
        Dish(name: "唐揚げ", category: "main", ingredients: ["chicken", "soy sauce", "ginger", "garlic", "potato starch"]),
        Dish(name: "味噌汁", category: "soup", ingredients: ["miso", "tofu", "wakame", "dashi"]),
        Dish(name: "抹茶プリン", category: "dessert", ingredients: ["matcha", "milk", "sugar", "gelatin"]),
    ]

    static let qualifiers = [
        "Quick", "Easy", "Spicy", "Creamy", "Homemade", "Grandma's", "Weeknight", "Healthy", "Smoky",
        "Crispy", "One-Pot", "Classic",
    ]
    static let japaneseQualifiers = ["簡単", "本格", "ふわふわ", "絶品", "時短"]

    static let extraIngredients = [
        "salt", "pepper", "garlic", "honey", "chili", "cheese", "spinach", "lemon", "sesame", "coriander",
    ]

    static let firstNames = [
        "Aiko", "Ben", "Chloe", "Daiki", "Elena", "Farid", "Greta", "Hana", "Ivan", "Julia", "Kenji", "Lina",
        "Marco", "Nora", "Omar", "Priya", "Quinn", "Rin", "Sofia", "Takumi",
    ]
    static let lastNames = [
        "Tanaka", "Rossi", "Smith", "Suzuki", "Garcia", "Kim", "Müller", "Sato", "Dubois", "Silva", "Ito",
        "Novak",
    ]

    static let cooksnapComments = [
        "Made it tonight, delicious!", "Kids loved it.", "Added more garlic.", "美味しかった！",
        "Will make again.", "Easy and quick.", "作りました！", "Perfect for a rainy day.",
    ]
}
